package catalogdhttp

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRemoteLines: every non-empty line of /api/v1/all is a blob, named
// by its line, however the reads split it; a line longer than MaxLine
// fails the read, naming the URL and the line, before it is held whole.
func TestRemoteLines(t *testing.T) {
	long := `{"schema":"olm.package","name":"` + strings.Repeat("x", 300<<10) + `"}`
	body := `{"schema":"olm.package","name":"a"}` + "\n\n" + long + "\n" + `{"schema":"olm.package","name":"b"}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, body) }))
	defer srv.Close()
	type blob struct {
		line int
		size int
	}
	read := func(r Remote) ([]blob, error) {
		var got []blob
		err := r.Source()(context.Background(), func(b []byte, file string, i int) error {
			assert.Equal(t, srv.URL+"/catalogs/c/api/v1/all", file)
			got = append(got, blob{i, len(strings.TrimSpace(string(b)))})
			return nil
		})
		return got, err
	}
	got, err := read(Remote{Base: srv.URL + "/catalogs/c/"})
	require.NoError(t, err)
	assert.Equal(t, []blob{{1, 35}, {3, len(long)}, {4, 35}}, got, "a line longer than the reader's buffer is one blob")

	_, err = read(Remote{Base: srv.URL + "/catalogs/c", MaxLine: 100 << 10})
	require.EqualError(t, err, "read "+srv.URL+"/catalogs/c/api/v1/all: line 3 is longer than 102400 bytes")
}
