package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"mpix/core/pmi"
)

// The test binary doubles as the rank program: with MPIXEXEC_TEST_RANK=1 in
// its environment, TestMain runs rankMain instead of the tests. Its first
// argument picks what the rank does:
//
//	ok                    put, fence, get every rank's value, finalize
//	env NAME              print NAME's value
//	args ARGS...          print the arguments it got
//	stdin                 print what standard input holds
//	exit R CODE           rank R exits CODE after init, the others hang
//	nofinalize R          rank R exits 0 after init, the others hang
//	abort R CODE MSG      rank R calls Abort(CODE, MSG), the others hang
//	sleep                 write a pid file to $MPIXEXEC_TEST_PIDDIR, hang
//	hang                  hang without PMI
//	lines                 write lines in pieces to stdout, one to stderr
//	pwd                   print the working directory
//	affinity              print the CPUs each of its threads may run on
//	usr                   catch SIGUSR1 and SIGUSR2, write a pid file to
//	                      $MPIXEXEC_TEST_PIDDIR, print each signal, exit
//
// A hanging rank waits in a second fence, which never completes.
const rankEnv = "MPIXEXEC_TEST_RANK"

func rankMain(args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "rank: no mode")
		return 99
	}
	die := func(format string, a ...any) int {
		fmt.Fprintf(os.Stderr, "rank: "+format+"\n", a...)
		return 98
	}
	mode, args := args[0], args[1:]
	switch mode {
	case "hang":
		time.Sleep(time.Minute)
		return 0
	case "args":
		fmt.Printf("args %q\n", args)
		return 0
	case "env":
		fmt.Printf("rank %s %s=%s\n", os.Getenv("MPIX_LOCAL_RANK"), args[0], os.Getenv(args[0]))
		return 0
	case "lines":
		// Partial writes with pauses between them: -l must not cut them.
		for _, piece := range []string{"par", "tial\nsecond ", "line\n", "no newline"} {
			os.Stdout.WriteString(piece)
			time.Sleep(20 * time.Millisecond)
		}
		fmt.Fprintln(os.Stderr, "err line")
		return 0
	case "pwd":
		wd, err := os.Getwd()
		if err != nil {
			return die("getwd: %v", err)
		}
		fmt.Printf("rank %s pwd %s\n", os.Getenv("MPIX_LOCAL_RANK"), wd)
		return 0
	case "affinity":
		// Every thread's: the Go runtime's threads started before main.
		tasks, _ := filepath.Glob("/proc/self/task/*/status")
		sets := map[string]bool{}
		for _, f := range tasks {
			b, err := os.ReadFile(f)
			if err != nil {
				continue // a thread that ended
			}
			for l := range strings.Lines(string(b)) {
				if v, ok := strings.CutPrefix(l, "Cpus_allowed_list:"); ok {
					sets[strings.TrimSpace(v)] = true
				}
			}
		}
		var list []string
		for v := range sets {
			list = append(list, v)
		}
		sort.Strings(list)
		fmt.Printf("rank %s threads %d cpus %s\n", os.Getenv("MPIX_LOCAL_RANK"), len(tasks), strings.Join(list, " "))
		return 0
	case "usr":
		sigc := make(chan os.Signal, 2)
		signal.Notify(sigc, syscall.SIGUSR1, syscall.SIGUSR2)
		rank := os.Getenv("MPIX_LOCAL_RANK")
		pid := []byte(strconv.Itoa(os.Getpid()))
		if err := os.WriteFile(filepath.Join(os.Getenv("MPIXEXEC_TEST_PIDDIR"), "rank-"+rank+".pid"), pid, 0o644); err != nil {
			return die("%v", err)
		}
		for range 2 {
			select {
			case sig := <-sigc:
				fmt.Printf("rank %s got %v\n", rank, sig)
			case <-time.After(30 * time.Second):
				return die("no signal")
			}
		}
		return 0
	case "stdin":
		b, err := io.ReadAll(os.Stdin)
		if err != nil {
			return die("read stdin: %v", err)
		}
		fmt.Printf("rank %s stdin %q\n", os.Getenv("MPIX_LOCAL_RANK"), b)
		return 0
	}

	c, err := pmi.Connect()
	if err != nil {
		return die("connect: %v", err)
	}
	me, n := c.Rank(), c.Size()
	target := -1
	if len(args) > 0 {
		target, _ = strconv.Atoi(args[0])
	}
	hang := func() int {
		c.Fence() // the target never joins: blocks until killed
		time.Sleep(time.Minute)
		return 97
	}
	if mode != "ok" && mode != "sleep" {
		if err := c.Fence(); err != nil {
			return die("fence: %v", err)
		}
		if me != target {
			return hang()
		}
	}
	switch mode {
	case "ok":
		val := fmt.Sprintf("rank %d says hi = %d%%", me, me*me)
		if err := c.Put(fmt.Sprintf("hi-%d", me), val); err != nil {
			return die("put: %v", err)
		}
		if err := c.Fence(); err != nil {
			return die("fence: %v", err)
		}
		for r := range n {
			want := fmt.Sprintf("rank %d says hi = %d%%", r, r*r)
			if got, err := c.Get(r, fmt.Sprintf("hi-%d", r)); err != nil || got != want {
				return die("get hi-%d = %q, %v; want %q", r, got, err, want)
			}
		}
		fmt.Printf("rank %d of %d ok local %s/%s singleton %v universe %d\n", me, n,
			os.Getenv("MPIX_LOCAL_RANK"), os.Getenv("MPIX_LOCAL_SIZE"), c.Singleton(), c.UniverseSize())
		if err := c.Finalize(); err != nil {
			return die("finalize: %v", err)
		}
		return 0
	case "sleep":
		dir := os.Getenv("MPIXEXEC_TEST_PIDDIR")
		pid := []byte(strconv.Itoa(os.Getpid()))
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("rank-%d.pid", me)), pid, 0o644); err != nil {
			return die("%v", err)
		}
		time.Sleep(time.Minute)
		return 96
	case "exit":
		code, _ := strconv.Atoi(args[1])
		return code
	case "nofinalize":
		return 0
	case "abort":
		code, _ := strconv.Atoi(args[1])
		if err := c.Abort(code, strings.Join(args[2:], " ")); err != nil {
			return die("abort: %v", err)
		}
		return code
	}
	return die("unknown mode %q", mode)
}
