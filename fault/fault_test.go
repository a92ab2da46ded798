package fault_test

import (
	"errors"
	"fmt"
	"syscall"
	"testing"

	"github.com/ckptdev/ckpt/fault"
)

func TestMarkKeepsMessageAndKind(t *testing.T) {
	base := errors.New("no checkpoint \"x\"")
	err := fmt.Errorf("restore: %w", fault.Mark(base, fault.Invalid))
	if err.Error() != `restore: no checkpoint "x"` {
		t.Errorf("message %q", err)
	}
	if !errors.Is(err, fault.Invalid) || !errors.Is(err, base) {
		t.Errorf("errors.Is lost the kind or the cause: %v", err)
	}
	if errors.Is(err, fault.NotFound) || errors.Is(err, fault.Busy) {
		t.Errorf("marked with a kind it was not given")
	}
	if fault.Mark(nil, fault.Invalid) != nil {
		t.Errorf("Mark(nil) is not nil")
	}
}

func TestSentinelIsItselfAndItsKind(t *testing.T) {
	badID := fault.Sentinel(fault.Invalid, "bad checkpoint id")
	other := fault.Sentinel(fault.Invalid, "bad checkpoint id")
	err := fmt.Errorf("show: %w", fault.Mark(errors.New("\"zz\" is not a checkpoint id"), badID))
	if !errors.Is(err, badID) || !errors.Is(err, fault.Invalid) {
		t.Errorf("sentinel or kind lost: %v", err)
	}
	if errors.Is(err, other) {
		t.Errorf("two sentinels with one message are one")
	}
	if fault.KindOf(err) != fault.Invalid {
		t.Errorf("KindOf = %v", fault.KindOf(err))
	}
}

func TestFullIsENOSPC(t *testing.T) {
	err := fmt.Errorf("write blob: %w", syscall.ENOSPC)
	if !errors.Is(err, fault.Full) || fault.KindOf(err) != fault.Full {
		t.Errorf("an ENOSPC from below is not of kind Full")
	}
	if fault.KindOf(errors.New("plain")) != nil {
		t.Errorf("a plain error has a kind")
	}
}
