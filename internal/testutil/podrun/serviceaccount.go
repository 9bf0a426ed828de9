package podrun

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
)

// serviceAccount writes the pod's service account volume once (the
// projected token, the cluster's CA and the namespace, as the kubelet
// mounts them) and makes the API server reachable at its address inside
// the pod's namespace, forwarded to the host's (kube-proxy's part for the
// kubernetes Service). It returns the volume's directory.
func (p *Pod) serviceAccount() (string, error) {
	p.saOnce.Do(func() { p.saDir, p.saErr = p.writeServiceAccount() })
	return p.saDir, p.saErr
}

func (p *Pod) writeServiceAccount() (string, error) {
	dir := filepath.Join(p.dir, "serviceaccount")
	sa := p.spec.Spec.ServiceAccountName
	if sa == "" {
		sa = "default"
	}
	ns := p.spec.Namespace
	if ns == "" {
		ns = "default"
	}
	token, err := p.rt.api.Token(p.ctx, ns, sa)
	if err != nil {
		return "", fmt.Errorf("token for service account %s/%s: %w", ns, sa, err)
	}
	l, err := p.ns.listen(p.rt.api.Addr)
	if err != nil {
		return "", fmt.Errorf("API server address in the pod's namespace: %w", err)
	}
	go func() {
		<-p.ctx.Done()
		l.Close()
	}()
	go forward(l, func(ctx context.Context) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "tcp", p.rt.api.Addr)
	})
	tmp := dir + ".tmp"
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return "", err
	}
	for name, data := range map[string][]byte{"token": []byte(token), "ca.crt": p.rt.api.CA, "namespace": []byte(ns)} {
		// Readable by any runAsUser, as the kubelet's defaultMode 0644.
		if err := os.WriteFile(filepath.Join(tmp, name), data, 0o644); err != nil {
			return "", err
		}
	}
	return dir, os.Rename(tmp, dir)
}
