package jobtool

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// ConfigMaps gets and replaces ConfigMaps through the API server's REST
// API, the two requests Extract makes.
type ConfigMaps struct {
	// Host is the API server's URL, with any path prefix.
	Host string
	// Client sends the requests and authenticates them.
	Client *http.Client
}

// ConfigMap is a ConfigMap as the API server returned it, every field kept
// so that replacing it changes only what Extract sets.
type ConfigMap map[string]any

// StatusError is a request the API server refused, with the reason and
// message of its Status.
type StatusError struct {
	Code    int
	Reason  string
	Message string
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("%s (%d %s)", e.Message, e.Code, e.Reason)
}

// IsStatus reports whether err is a StatusError with the HTTP status code.
func IsStatus(err error, code int) bool {
	var s *StatusError
	return errors.As(err, &s) && s.Code == code
}

// The in-cluster service account files and environment, as every
// Kubernetes client reads them.
const (
	serviceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount"
	envHost           = "KUBERNETES_SERVICE_HOST"
	envPort           = "KUBERNETES_SERVICE_PORT"
)

// InCluster returns ConfigMaps for the pod's service account: the API
// server from $KUBERNETES_SERVICE_HOST and _PORT, its CA and the token
// from the mounted service account, the token read again for every
// request because the kubelet rotates it.
func InCluster() (*ConfigMaps, error) {
	return inCluster(serviceAccountDir, os.Getenv(envHost), os.Getenv(envPort))
}

// inCluster is InCluster with the service account directory and the API
// server's address given.
func inCluster(dir, host, port string) (*ConfigMaps, error) {
	if host == "" || port == "" {
		return nil, fmt.Errorf("not running in a pod: %s and %s are not set", envHost, envPort)
	}
	caFile := filepath.Join(dir, "ca.crt")
	caPEM, err := os.ReadFile(caFile)
	if err != nil {
		return nil, fmt.Errorf("in-cluster CA: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		return nil, fmt.Errorf("in-cluster CA %s: no certificate", caFile)
	}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	return &ConfigMaps{
		Host:   "https://" + net.JoinHostPort(host, port),
		Client: &http.Client{Transport: &tokenFile{path: filepath.Join(dir, "token"), next: transport}},
	}, nil
}

// tokenFile authenticates each request with the bearer token in a file.
type tokenFile struct {
	path string
	next http.RoundTripper
}

func (t *tokenFile) RoundTrip(req *http.Request) (*http.Response, error) {
	token, err := os.ReadFile(t.path)
	if err != nil {
		return nil, fmt.Errorf("service account token: %w", err)
	}
	req = req.Clone(req.Context())
	req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(token)))
	return t.next.RoundTrip(req)
}

func (c *ConfigMaps) url(namespace, name string) string {
	return strings.TrimSuffix(c.Host, "/") + "/api/v1/namespaces/" + url.PathEscape(namespace) + "/configmaps/" + url.PathEscape(name)
}

// Get returns the ConfigMap namespace/name.
func (c *ConfigMaps) Get(ctx context.Context, namespace, name string) (ConfigMap, error) {
	var cm ConfigMap
	return cm, c.do(ctx, http.MethodGet, c.url(namespace, name), nil, &cm)
}

// Update replaces the ConfigMap namespace/name with cm, which must carry
// the resourceVersion it was read with (a conflict is a 409 StatusError).
func (c *ConfigMaps) Update(ctx context.Context, namespace, name string, cm ConfigMap) (ConfigMap, error) {
	body, err := json.Marshal(cm)
	if err != nil {
		return nil, err
	}
	var out ConfigMap
	return out, c.do(ctx, http.MethodPut, c.url(namespace, name), body, &out)
}

// maxResponse bounds a response body: a ConfigMap holds at most 1 MiB of
// data, base64 and JSON make that at most a few MiB.
const maxResponse = 16 << 20

func (c *ConfigMaps) do(ctx context.Context, method, u string, body []byte, into any) error {
	req, err := http.NewRequestWithContext(ctx, method, u, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.Client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse))
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, u, err)
	}
	if resp.StatusCode/100 != 2 {
		status := StatusError{Code: resp.StatusCode, Reason: http.StatusText(resp.StatusCode), Message: strings.TrimSpace(string(data))}
		_ = json.Unmarshal(data, &status) // a Status object: reason, message, code
		status.Code = resp.StatusCode
		return &status
	}
	if err := json.Unmarshal(data, into); err != nil {
		return fmt.Errorf("%s %s: response is not JSON: %w", method, u, err)
	}
	return nil
}
