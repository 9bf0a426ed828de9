package main

import (
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/internal/testutil/imagetest"
)

var httpReady = regexp.MustCompile(`catalogd HTTP API ready at (http://[^\s"]+)`)

// TestServeCommandHTTP runs `olmcat serve --http 127.0.0.1:0` in
// process, alone (-p -1) and beside the gRPC API, and asks its catalogd
// HTTP API for the catalog.
func TestServeCommandHTTP(t *testing.T) {
	reg := imagetest.New(t)
	tmp, imgFlags := imageTestEnv(t)
	dbImage := pushDBImage(t, reg, "small-fbb/index:v1", "../../fixtures/legacy/small-fbb/index.db")
	fbcImage := pushConfigsImage(t, reg, "small-fbb/fbc:v1", "../../fixtures/legacy/small-fbb/opm-migrate")
	for _, tc := range []struct {
		name string
		args []string
		url  string // the /all path logged
	}{
		{"http only", []string{"-p", "-1", "../../fixtures/legacy/small-fbb/opm-migrate"}, "/catalogs/opm-migrate/api/v1/all"},
		{"beside gRPC", []string{"-p", "0", "--catalog-name", "small", "../../fixtures/legacy/small-fbb/opm-migrate"}, "/catalogs/small/api/v1/all"},
		{"sqlite", []string{"-p", "-1", "--no-deprecation-warning", "--catalog-name", "small", "../../fixtures/legacy/small-fbb/index.db"}, "/catalogs/small/api/v1/all"},
		{"declarative config image", append([]string{"-p", "-1", fbcImage}, imgFlags...), "/catalogs/fbc/api/v1/all"},
		{"sqlite image", append([]string{"-p", "-1", "--no-deprecation-warning", dbImage}, imgFlags...), "/catalogs/index/api/v1/all"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			stderr := &lockedBuffer{}
			cmd := newRootCmd()
			cmd.SetErr(stderr)
			cmd.SetArgs(append([]string{"serve", "--http", "127.0.0.1:0"}, tc.args...))
			done := make(chan error, 1)
			go func() { done <- cmd.ExecuteContext(ctx) }()
			var url string
			require.Eventually(t, func() bool {
				m := httpReady.FindStringSubmatch(stderr.String())
				if m != nil {
					url = m[1]
				}
				return m != nil
			}, 30*time.Second, 10*time.Millisecond, "no 'catalogd HTTP API ready' log line: %s", stderr.String())
			require.True(t, strings.HasSuffix(url, tc.url), url)
			resp, err := http.Get(strings.TrimSuffix(url, "/all") + "/metas?schema=olm.package&name=foo")
			require.NoError(t, err)
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			require.NoError(t, err)
			require.Equal(t, http.StatusOK, resp.StatusCode)
			require.Equal(t, "application/jsonl", resp.Header.Get("Content-Type"))
			require.Contains(t, string(body), `"defaultChannel":"beta"`)
			cancel()
			require.NoError(t, <-done)
			ents, err := os.ReadDir(tmp)
			require.NoError(t, err)
			for _, e := range ents {
				require.False(t, strings.HasPrefix(e.Name(), "olmcat-catalogd-"), "the served files' directory %s is left", e.Name())
			}
		})
	}
}

func TestServeCommandHTTPUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"serve", "-p", "-1", "../../fixtures/legacy/small-fbb/opm-migrate"},
		{"serve", "-p", "-2", "--http", ":0", "../../fixtures/legacy/small-fbb/opm-migrate"},
		{"serve", "--http", ":0", "--catalog-name", "Not_A_Name", "../../fixtures/legacy/small-fbb/opm-migrate"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			cmd := newRootCmd()
			cmd.SetErr(&lockedBuffer{})
			cmd.SetArgs(args)
			err := cmd.ExecuteContext(context.Background())
			var ee *exitError
			require.True(t, errors.As(err, &ee), "%v", err)
			require.Equal(t, exitUsage, ee.code)
		})
	}
}
