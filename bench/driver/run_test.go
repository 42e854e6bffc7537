package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestLaunchCommand(t *testing.T) {
	env := map[string]string{"B": "2", "A": "1"}
	cases := []struct {
		im   Impl
		want string
	}{
		{mpix, "build/bin/mpixexec -n 4 -env A 1 -env B 2 ./x 8"},
		{mpich, "mpiexec.hydra -launcher fork -n 4 -genv A 1 -genv B 2 ./x 8"},
		{openmpi, "mpirun.openmpi --allow-run-as-root --oversubscribe -n 4 -x A=1 -x B=2 ./x 8"},
	}
	for _, c := range cases {
		if got := strings.Join(launchCommand(c.im, 4, env, "./x", []string{"8"}), " "); got != c.want {
			t.Errorf("%s: %s", c.im.Name, got)
		}
	}
	got := strings.Join(launchCommand(mpixOFI, 2, mergeEnv(nil, mpixOFI.Env), "./p", nil), " ")
	if got != "build/bin/mpixexec -n 2 -env MPIX_SHM 0 ./p" {
		t.Errorf("mpix-ofi: %s", got)
	}
}

func TestFailureReason(t *testing.T) {
	err := errors.New("exit status 44")
	stderr := "mpix: rank 0: MPI_Bcast: MPI_Bcast is not implemented yet\nmpixexec: rank 0 called MPI_Abort (code 44)\n"
	if got := failureReason(err, stderr); got != "mpix: rank 0: MPI_Bcast: MPI_Bcast is not implemented yet (exit status 44)" {
		t.Errorf("got %q", got)
	}
	if got := failureReason(err, "starting\nFatal error in PMPI_Send\nbye\n"); got != "Fatal error in PMPI_Send (exit status 44)" {
		t.Errorf("got %q", got)
	}
	if got := failureReason(err, "a\nlast words\n\n"); got != "last words (exit status 44)" {
		t.Errorf("got %q", got)
	}
	if got := failureReason(err, ""); got != "exit status 44" {
		t.Errorf("got %q", got)
	}
}

func TestLaunch(t *testing.T) {
	o := launch([]string{"sh", "-c", "echo out; echo err >&2; exit 0"}, []string{"X=1"}, 10*time.Second)
	if o.Err != "" || o.Stdout != "out\n" || o.Stderr != "err\n" {
		t.Errorf("ok launch: %+v", o)
	}
	o = launch([]string{"sh", "-c", `echo "$X"`}, []string{"X=set"}, 10*time.Second)
	if o.Stdout != "set\n" {
		t.Errorf("extra env not passed: %+v", o)
	}
	o = launch([]string{"sh", "-c", "echo broken >&2; exit 3"}, nil, 10*time.Second)
	if o.Err != "broken (exit status 3)" {
		t.Errorf("failing launch: %q", o.Err)
	}
	// A hung job is ended, children included, at the timeout.
	start := time.Now()
	o = launch([]string{"sh", "-c", "sleep 30 & sleep 30; wait"}, nil, 300*time.Millisecond)
	if !strings.HasPrefix(o.Err, "timed out after") {
		t.Errorf("hung launch: %q", o.Err)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("timeout took %s", el)
	}
}

func TestRunFigureSweepAndWallRow(t *testing.T) {
	// A figure whose "launcher" is sh: stands in for an MPI launch through a fake impl.
	dir := t.TempDir()
	script := filepath.Join(dir, "prog")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho \"rate $1 $2\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	// launchCommand for an unknown build runs the binary directly.
	im := Impl{Name: "fake", Build: "none"}
	f := Figure{
		Program: "prog", Parse: Parse{Key: "rate", WallRow: "wall"},
		Points: []Point{{Row: "1", Args: []string{"t1", "10"}}, {Row: "2", Args: []string{"t2", "20"}}},
	}
	argv := launchCommand(im, 1, nil, script, []string{"a", "5"})
	if strings.Join(argv, " ") != script+" a 5" {
		t.Fatalf("argv %v", argv)
	}
	samples, _, _, reason := runFigureWith(f, im, time.Second, func(string, string) string { return script })
	if reason != "" {
		t.Fatal(reason)
	}
	if len(samples) != 4 || samples[0] != (Sample{"1", 10}) || samples[1].Row != "wall" || samples[2] != (Sample{"2", 20}) {
		t.Errorf("samples %v", samples)
	}
}

// A launch that prints no row but a note fails with the note as its reason; the
// Open MPI build of bench/part.c emulates the partitioned calls.
func TestRunFigureNoRowsNote(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "prog")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho \"note partitioned rows skipped: not implemented yet\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	im := Impl{Name: "fake", Build: "none"}
	f := Figure{Program: "prog", Parse: Parse{Key: "partbw"}}
	_, _, _, reason := runFigureWith(f, im, time.Second, func(string, string) string { return script })
	if reason != `no "partbw" line in its output: partitioned rows skipped: not implemented yet` {
		t.Errorf("reason %q", reason)
	}
	if strings.Join(extraFlags["part_openmpi"], " ") != "-DPART_EMULATE" || len(extraFlags["part_mpich"]) != 0 {
		t.Errorf("extraFlags %v", extraFlags)
	}
}
