package api

import (
	"errors"
	"fmt"
	"net/http"
	"syscall"
	"testing"
)

func TestStatusRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		err     error
		status  int
		invalid bool
		full    bool
	}{
		{Invalid(errors.New("no checkpoint x")), StatusInvalid, true, false},
		{fmt.Errorf("wrapped: %w", Invalid(errors.New("bad"))), StatusInvalid, true, false},
		{fmt.Errorf("write: %w", syscall.ENOSPC), StatusFull, false, true},
		{errors.New("boom"), http.StatusInternalServerError, false, false},
	} {
		got := StatusOf(tc.err)
		if got != tc.status {
			t.Errorf("StatusOf(%v) = %d, want %d", tc.err, got, tc.status)
		}
		back := ErrorOf(got, tc.err.Error())
		if back.Error() != tc.err.Error() {
			t.Errorf("ErrorOf reads %q, want %q", back, tc.err)
		}
		if errors.Is(back, ErrInvalid) != tc.invalid || errors.Is(back, syscall.ENOSPC) != tc.full {
			t.Errorf("ErrorOf(%d) = %v: invalid %v full %v, want %v %v", got, back,
				errors.Is(back, ErrInvalid), errors.Is(back, syscall.ENOSPC), tc.invalid, tc.full)
		}
	}
	if Invalid(nil) != nil {
		t.Error("Invalid(nil) is not nil")
	}
}

func TestCheckVersion(t *testing.T) {
	if err := CheckVersion(Version); err != nil {
		t.Errorf("same version: %v", err)
	}
	for _, v := range []string{"", "0.0.1", Version + "+dirty"} {
		if CheckVersion(v) == nil {
			t.Errorf("CheckVersion(%q) = nil, want a warning", v)
		}
	}
}

// TestStatusesAreNetHTTPs: the statuses written out as numbers are
// net/http's, which the daemon answers with.
func TestStatusesAreNetHTTPs(t *testing.T) {
	for _, c := range []struct{ ours, theirs int }{
		{StatusInvalid, http.StatusBadRequest}, {StatusNotServed, http.StatusNotFound},
		{StatusWrongMethod, http.StatusMethodNotAllowed}, {StatusConflict, http.StatusConflict},
		{StatusBusy, http.StatusServiceUnavailable}, {StatusFull, http.StatusInsufficientStorage},
		{statusInternal, http.StatusInternalServerError},
	} {
		if c.ours != c.theirs {
			t.Errorf("status %d, net/http's is %d", c.ours, c.theirs)
		}
	}
}
