package report_test

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	report "github.com/operator-catalog/olmcat/cmd/olmcat/internal/report"
	"github.com/operator-catalog/olmcat/migrate"
	"github.com/operator-catalog/olmcat/registry/parity"
)

// requireBrowserEnv makes a missing Chromium fail instead of skip; make
// test sets it, since it installs Chromium first.
const requireBrowserEnv = "OLMCAT_REQUIRE_BROWSER"

// artifactsEnv names a directory that keeps a copy of the screenshots
// after the test's temp dir is gone (for CI artifacts and for looking).
const artifactsEnv = "OLMCAT_TEST_ARTIFACTS"

// chromiumPath finds Debian's chromium.
func chromiumPath(tb testing.TB) string {
	tb.Helper()
	for _, name := range []string{"chromium", "/usr/bin/chromium"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv(requireBrowserEnv) != "" {
		require.Fail(tb, "chromium not found (install Debian's chromium package; make test does)")
	}
	tb.Skip("chromium not found; make test installs it")
	return ""
}

// browser starts a headless Chromium with a fresh profile and returns a
// tab context and the list of URLs it requested.
func browser(tb testing.TB) (context.Context, func() []string) {
	tb.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromiumPath(tb)),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(tb.TempDir()),
		chromedp.WindowSize(1280, 900),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(actx)
	ctx, cancelTime := context.WithTimeout(ctx, 2*time.Minute)
	tb.Cleanup(func() { cancelTime(); cancelTab(); cancelAlloc() })
	var mu sync.Mutex
	var requests []string
	require.NoError(tb, chromedp.Listen(ctx, func(ev any) {
		if e, ok := ev.(*network.EventRequestWillBeSent); ok {
			mu.Lock()
			requests = append(requests, e.Request.URL)
			mu.Unlock()
		}
	}))
	// chromedp enables the Network domain of every tab it attaches to.
	return ctx, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), requests...)
	}
}

// migrateWithReport migrates a legacy fixture and writes its HTML report.
func migrateWithReport(tb testing.TB, dbPath string) (string, *migrate.Report) {
	tb.Helper()
	dir := tb.TempDir()
	graphs := report.NewMigrationGraphs()
	rep, err := migrate.Migrate(context.Background(), dbPath, filepath.Join(dir, "catalog"), migrate.WithPackageGraphs(graphs.Add))
	require.NoError(tb, err)
	page := filepath.Join(dir, "report.html")
	f, err := os.Create(page)
	require.NoError(tb, err)
	require.NoError(tb, report.WriteMigration(f, rep, graphs))
	require.NoError(tb, f.Close())
	return page, rep
}

func fileURL(path string) string {
	abs, _ := filepath.Abs(path)
	return (&url.URL{Scheme: "file", Path: abs}).String()
}

// TestMigrationReportInBrowser opens the report of real fixture migrations
// (a dropped deprecated bundle and repairs) from a file URL in headless
// Chromium and checks through the DOM that every package and every drop
// is there, with each dropped deprecated bundle highlighted in its
// package's before graph, that the search box filters packages, and that
// the page made no request but its own file. The screenshot is left in the
// test's temp dir.
func TestMigrationReportInBrowser(t *testing.T) {
	for _, fixture := range []string{"small-fbb-deprecated", "opm-manifests"} {
		t.Run(fixture, func(t *testing.T) {
			page, rep := migrateWithReport(t, filepath.Join("..", "..", "..", "..", "fixtures", "legacy", fixture, "index.db"))
			ctx, requests := browser(t)
			require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(fileURL(page)), chromedp.WaitReady(chromedp.CSS("#packages"))))
			eval := func(expr string) []string {
				v, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](expr))
				require.NoError(t, err, expr)
				return v
			}
			count := func(expr string) int {
				v, err := chromedp.Run(ctx, chromedp.Evaluate[int](expr))
				require.NoError(t, err, expr)
				return v
			}
			packages := eval(`[...document.querySelectorAll('details.package')].map(d => d.dataset.package)`)
			dropRows := eval(`[...document.querySelectorAll('tr.drop')].map(r => r.dataset.package + '/' + r.dataset.bundle + ' ' + r.dataset.kind)`)
			droppedNodes := eval(`[...document.querySelectorAll('details.package')].flatMap(d => [...d.querySelectorAll('.graph.before g.channel g.node.dropped')].map(n => d.dataset.package + '/' + n.dataset.name))`)
			repairRows := count(`document.querySelectorAll('tr.repair').length`)
			first := packages[0]
			wantPackages := append([]string{}, packagesOf(t, fixture)...)
			assert.Equal(t, wantPackages, packages)
			var wantRows, wantNodes []string
			for _, d := range rep.Drops {
				wantRows = append(wantRows, d.Package+"/"+d.Bundle+" "+string(d.Kind))
				if d.Kind == migrate.DropDeprecated {
					wantNodes = append(wantNodes, d.Package+"/"+d.Bundle)
				}
			}
			assert.ElementsMatch(t, wantRows, dropRows)
			// Each dropped bundle is drawn (dropped) in every channel that had it.
			assert.ElementsMatch(t, wantNodes, uniq(droppedNodes))
			assert.Equal(t, len(rep.Repairs), repairRows)
			if fixture == "small-fbb-deprecated" {
				assert.Equal(t, []string{"foo/foo.v0.2.0"}, wantNodes, "the fixture drops a deprecated bundle")
			}
			assert.NotZero(t, len(rep.Repairs), "the fixture has repairs")

			require.NoError(t, chromedp.Do(ctx, chromedp.SendKeys(chromedp.CSS("#search"), first)))
			visibleAfterSearch := count(`[...document.querySelectorAll('details.package')].filter(d => !d.classList.contains('hidden')).length`)
			height := count(`const q = document.getElementById('search'); q.value = ''; q.dispatchEvent(new Event('input'));
				document.querySelectorAll('details.package').forEach(d => d.open = true); document.documentElement.scrollHeight`)
			require.NoError(t, chromedp.Do(ctx, chromedp.EmulateViewport(1280, int64(min(height, 8000)))))
			png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
			require.NoError(t, err)
			assert.Equal(t, 1, visibleAfterSearch, "the search box filters packages")
			shot := filepath.Join(t.TempDir(), fixture+".png")
			require.NoError(t, os.WriteFile(shot, png, 0o644))
			t.Logf("screenshot: %s", shot)
			if dir := os.Getenv(artifactsEnv); dir != "" {
				require.NoError(t, os.WriteFile(filepath.Join(dir, fixture+".png"), png, 0o644))
			}

			for _, u := range requests() {
				assert.Equal(t, fileURL(page), u, "the page requested nothing but itself")
			}
		})
	}
}

// packagesOf lists the package names of a fixture, from its opm migration.
func packagesOf(t *testing.T, fixture string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join("..", "..", "..", "..", "fixtures", "legacy", fixture, "opm-migrate"))
	require.NoError(t, err)
	var out []string
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out
}

func uniq(s []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, v := range s {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

// BenchmarkOpenMigrationReport opens the HTML report of the migration of
// OLMCAT_BENCH_DB (scripts/gen-bench-db.sh) in headless Chromium, until
// the page's load event, and reports the page size.
func BenchmarkOpenMigrationReport(b *testing.B) {
	db := os.Getenv("OLMCAT_BENCH_DB")
	if db == "" {
		b.Skip("set OLMCAT_BENCH_DB to a legacy index (scripts/gen-bench-db.sh)")
	}
	page, _ := migrateWithReport(b, db)
	st, err := os.Stat(page)
	require.NoError(b, err)
	ctx, _ := browser(b)
	require.NoError(b, chromedp.Do(ctx, chromedp.Navigate("about:blank")))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		require.NoError(b, chromedp.Do(ctx, chromedp.Navigate(fileURL(page))))
		n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('details.package').length`))
		require.NoError(b, err, "no package in the page")
		require.NotZero(b, n, "no package in the page")
	}
	b.ReportMetric(float64(st.Size())/1e6, "MB")
	fmt.Fprintf(os.Stderr, "report %s: %.1f MB\n", page, float64(st.Size())/1e6)
}

// TestParityReportInBrowser opens the parity page of a real fixture (its
// database against opm's migration of it) and checks through the DOM that
// every RPC has its row and every rule seen its group, with no request
// but the page itself.
func TestParityReportInBrowser(t *testing.T) {
	fixture := filepath.Join("..", "..", "..", "..", "fixtures", "legacy", "small-fbb-deprecated")
	res, err := parity.Check(context.Background(), filepath.Join(fixture, "index.db"), filepath.Join(fixture, "opm-migrate"))
	require.NoError(t, err)
	page := filepath.Join(t.TempDir(), "parity.html")
	f, err := os.Create(page)
	require.NoError(t, err)
	require.NoError(t, report.WriteParity(f, res))
	require.NoError(t, f.Close())

	ctx, requests := browser(t)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(fileURL(page)), chromedp.WaitReady(chromedp.CSS("#rules"))))
	rpcs, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('tr.rpc')].map(r => r.dataset.rpc)`))
	require.NoError(t, err)
	rules, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('details.rule')].map(d => d.dataset.rule + ' ' + d.querySelectorAll('tr.diff').length)`))
	require.NoError(t, err)
	assert.Equal(t, parity.RPCs, rpcs)
	var want []string
	for rule, n := range res.RulesSeen {
		want = append(want, fmt.Sprintf("%s %d", rule, n))
	}
	assert.ElementsMatch(t, want, rules)
	for _, u := range requests() {
		assert.Equal(t, fileURL(page), u, "the page requested nothing but itself")
	}
}
