package kubetest

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
	"k8s.io/client-go/rest"
)

// adminUser is the user name of the admin token (group system:masters).
const adminUser = "olmcat-test-admin"

// Cluster is a running etcd + kube-apiserver pair on loopback.
type Cluster struct {
	// Host is the API server's https URL.
	Host string
	// CAData is the PEM of the API server's self-signed serving chain.
	CAData []byte

	dir        string
	adminToken string
	etcd       *process
	apiserver  *process
}

// process is a started binary whose output goes to a log file.
type process struct {
	cmd  *exec.Cmd
	log  string
	done chan error
}

// Start runs etcd and kube-apiserver with fresh data in a temp dir and waits
// until the API server reports ready.
func Start(bins Binaries) (*Cluster, error) {
	dir, err := os.MkdirTemp(dataParent(), "olmcat-kubetest-")
	if err != nil {
		return nil, err
	}
	c := &Cluster{dir: dir}
	if err := c.start(bins); err != nil {
		c.Stop()
		return nil, err
	}
	return c, nil
}

// dataParent is where the cluster's data goes: in memory (/dev/shm) where
// there is one, since etcd fsyncs every write and the etcd this test
// suite runs (Debian's 3.4) has no --unsafe-no-fsync: on a disk busy with
// the image and pod tests a namespace create then outlasted the API
// server's 60 s request timeout. Elsewhere the default temp dir.
func dataParent() string {
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() && unix.Access("/dev/shm", unix.W_OK) == nil {
		return "/dev/shm"
	}
	return ""
}

func (c *Cluster) start(bins Binaries) error {
	ports, err := freePorts(3)
	if err != nil {
		return err
	}
	clientURL := "http://127.0.0.1:" + strconv.Itoa(ports[0])
	peerURL := "http://127.0.0.1:" + strconv.Itoa(ports[1])
	c.etcd, err = startProcess(filepath.Join(c.dir, "etcd.log"), bins.Etcd,
		"--name=kubetest",
		"--data-dir="+filepath.Join(c.dir, "etcd"),
		"--listen-client-urls="+clientURL,
		"--advertise-client-urls="+clientURL,
		"--listen-peer-urls="+peerURL,
		"--initial-advertise-peer-urls="+peerURL,
		"--initial-cluster=kubetest="+peerURL,
	)
	if err != nil {
		return err
	}

	keyFile, tokenFile, err := c.writeCredentials()
	if err != nil {
		return err
	}
	certDir := filepath.Join(c.dir, "certs")
	port := strconv.Itoa(ports[2])
	c.Host = "https://127.0.0.1:" + port
	c.apiserver, err = startProcess(filepath.Join(c.dir, "kube-apiserver.log"), bins.APIServer,
		"--etcd-servers="+clientURL,
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		"--secure-port="+port,
		"--cert-dir="+certDir,
		"--service-cluster-ip-range=10.0.0.0/24",
		"--service-account-issuer=https://kubernetes.default.svc",
		"--service-account-key-file="+keyFile,
		"--service-account-signing-key-file="+keyFile,
		"--token-auth-file="+tokenFile,
		"--authorization-mode=RBAC",
		"--allow-privileged=true",
		"--enable-priority-and-fairness=false",
	)
	if err != nil {
		return err
	}
	return c.waitReady(certDir, 3*time.Minute)
}

// writeCredentials writes the service-account signing key and the static
// token file that makes adminToken a system:masters user.
func (c *Cluster) writeCredentials() (keyFile, tokenFile string, err error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return "", "", err
	}
	keyFile = filepath.Join(c.dir, "sa.key")
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	if err := os.WriteFile(keyFile, keyPEM, 0o600); err != nil {
		return "", "", err
	}
	raw := make([]byte, 24)
	if _, err := rand.Read(raw); err != nil {
		return "", "", err
	}
	c.adminToken = hex.EncodeToString(raw)
	tokenFile = filepath.Join(c.dir, "tokens.csv")
	line := fmt.Sprintf("%s,%s,%s-uid,\"system:masters\"\n", c.adminToken, adminUser, adminUser)
	if err := os.WriteFile(tokenFile, []byte(line), 0o600); err != nil {
		return "", "", err
	}
	return keyFile, tokenFile, nil
}

// waitReady polls /readyz until it answers 200, a process exits, or the
// timeout passes. The serving certificate appears in certDir once the API
// server has generated it.
func (c *Cluster) waitReady(certDir string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		for _, p := range []*process{c.etcd, c.apiserver} {
			select {
			case err := <-p.done:
				p.done <- err
				return fmt.Errorf("%s exited early (%v); log tail:\n%s", filepath.Base(p.cmd.Path), err, p.tail())
			default:
			}
		}
		if c.CAData == nil {
			if pemData, err := os.ReadFile(filepath.Join(certDir, "apiserver.crt")); err == nil {
				c.CAData = pemData
			}
		}
		if c.CAData != nil && c.ready() {
			return nil
		}
		time.Sleep(250 * time.Millisecond)
	}
	return fmt.Errorf("kube-apiserver not ready after %s; log tail:\n%s", timeout, c.apiserver.tail())
}

func (c *Cluster) ready() bool {
	client, err := rest.HTTPClientFor(c.AdminConfig())
	if err != nil {
		return false
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, err := newGet(ctx, c.Host+"/readyz")
	if err != nil {
		return false
	}
	resp, err := client.Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == 200
}

// Stop ends both processes and removes the data directory.
func (c *Cluster) Stop() {
	for _, p := range []*process{c.apiserver, c.etcd} {
		if p != nil {
			p.stop()
		}
	}
	if c.dir != "" {
		os.RemoveAll(c.dir)
	}
}

// AdminConfig returns a client config authenticated as a system:masters user.
func (c *Cluster) AdminConfig() *rest.Config {
	return c.TokenConfig(c.adminToken)
}

// TokenConfig returns a client config authenticated by a bearer token.
func (c *Cluster) TokenConfig(token string) *rest.Config {
	return &rest.Config{
		Host:            c.Host,
		BearerToken:     token,
		TLSClientConfig: rest.TLSClientConfig{CAData: c.CAData},
		QPS:             200,
		Burst:           400,
		// Warnings (e.g. the Job's 63-character pod name) are expected.
		WarningHandler: rest.NoWarnings{},
	}
}

func startProcess(logPath, bin string, args ...string) (*process, error) {
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	// A process group of its own, so stopping it never touches the test
	// binary; killed if the test binary dies.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := startPinned(cmd); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	p := &process{cmd: cmd, log: logPath, done: make(chan error, 1)}
	go func() {
		p.done <- cmd.Wait()
		logFile.Close()
	}()
	return p, nil
}

// pinnedThread runs the functions sent to it on one OS thread that
// never exits.
var pinnedThread = sync.OnceValue(func() chan<- func() {
	ch := make(chan func())
	go func() {
		runtime.LockOSThread() // never unlocked: the thread lives as long as the process
		for f := range ch {
			f()
		}
	}()
	return ch
})

// startPinned starts cmd from the pinned thread. Linux sends Pdeathsig
// when the thread that forked the child exits, not the process
// (golang/go#27505), and the pod harness ends OS threads on purpose (a
// goroutine locked into a network namespace exits with its thread): when
// a thread that had forked the API server was reused that way, the
// server was killed in the middle of the run.
func startPinned(cmd *exec.Cmd) error {
	errc := make(chan error, 1)
	pinnedThread() <- func() { errc <- cmd.Start() }
	return <-errc
}

func (p *process) stop() {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// tail returns the last lines of the process log.
func (p *process) tail() string {
	data, _ := os.ReadFile(p.log)
	lines := bytes.Split(bytes.TrimRight(data, "\n"), []byte("\n"))
	if len(lines) > 30 {
		lines = lines[len(lines)-30:]
	}
	return string(bytes.Join(lines, []byte("\n")))
}

// freePorts reserves n distinct loopback ports by listening on port 0, then
// releases them for the processes to bind.
func freePorts(n int) ([]int, error) {
	var ports []int
	var listeners []net.Listener
	defer func() {
		for _, l := range listeners {
			l.Close()
		}
	}()
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("reserve loopback port: %w", err)
		}
		listeners = append(listeners, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}
