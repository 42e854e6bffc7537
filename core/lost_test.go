package core

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"mpix/transport"
)

// brokenEP is an endpoint whose transport broke for good.
type brokenEP struct{ memEP }

func (*brokenEP) Err() error { return errors.New("fi_send: Transport endpoint is not connected") }

// A broken transport ends the job with one line saying so, from the next progress,
// instead of leaving waits for answers that cannot come hanging. The job's end is an
// exit, so the check runs in a child process.
func TestTransportLostEndsJob(t *testing.T) {
	if os.Getenv("MPIX_TEST_TRANSPORT_LOST") == "1" {
		ep := &brokenEP{memEP{net: &memNet{queues: make([][]memMsg, 1), capacity: 1, maxPayload: 64}}}
		e := NewEngine(0, []transport.Endpoint{ep}, 1)
		e.Progress()
		os.Exit(0) // not reached when the check works
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestTransportLostEndsJob$")
	cmd.Env = append(os.Environ(), "MPIX_TEST_TRANSPORT_LOST=1")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() == 0 {
		t.Fatalf("the child did not end with an error: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "lost its connection to other processes") || !strings.Contains(string(out), "not connected") {
		t.Errorf("output does not say why:\n%s", out)
	}
}
