package snapshot

import "sync"

// inParallel runs fn(0..n-1) on up to workers goroutines and returns when
// every call has. A single call runs on the caller's goroutine.
func inParallel(n, workers int, fn func(i int)) {
	if n == 1 {
		fn(0)
		return
	}
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(n, workers) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				fn(i)
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}
