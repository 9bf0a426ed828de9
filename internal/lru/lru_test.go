package lru

import (
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestEvictsLeastRecentlyUsedBeyondBudget(t *testing.T) {
	c := New[string, int](100)
	c.Add("a", 1, 20)
	c.Add("b", 2, 20)
	c.Add("c", 3, 20)
	_, ok := c.Get("a") // a is now the most recently used
	require.True(t, ok)
	c.Add("d", 4, 20)
	c.Add("e", 5, 20)
	c.Add("f", 6, 20) // 120 bytes: evicts b, the least recently used
	_, ok = c.Get("b")
	require.False(t, ok)
	for k, want := range map[string]int{"a": 1, "c": 3, "d": 4, "e": 5, "f": 6} {
		v, ok := c.Get(k)
		require.True(t, ok, k)
		require.Equal(t, want, v)
	}
}

func TestKeepsFirstValueAndSkipsHugeOnes(t *testing.T) {
	c := New[string, int](100)
	c.Add("a", 1, 10)
	c.Add("a", 2, 10)
	v, _ := c.Get("a")
	require.Equal(t, 1, v)
	c.Add("big", 3, 26) // over a quarter of the budget
	_, ok := c.Get("big")
	require.False(t, ok)
	require.InDelta(t, 50, c.HitRate(), 0.1) // one hit (a), one miss (big)
}

func TestConcurrentUse(t *testing.T) {
	c := New[int, string](1 << 10)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 1000 {
				k := (g*7 + i) % 50
				if v, ok := c.Get(k); ok {
					require.Equal(t, fmt.Sprint(k), v)
				} else {
					c.Add(k, fmt.Sprint(k), 16)
				}
			}
		}()
	}
	wg.Wait()
}
