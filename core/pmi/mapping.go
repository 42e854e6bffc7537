package pmi

import (
	"fmt"
	"strconv"
	"strings"
)

// processMappingKey is the key under which PMI-1 and PMI-2 launchers
// (Hydra, Slurm, mpixexec) publish where the ranks run.
const processMappingKey = "PMI_process_mapping"

// localRanksFromMapping returns the ranks that share rank's node according
// to a PMI_process_mapping value of a job of size ranks.
//
// The value is MPICH's "vector" format, "(vector,(N,C,P),(N,C,P)...)": each
// block puts P consecutive ranks on each of the C nodes numbered from N.
// Blocks follow each other in rank order, and when they cover fewer ranks
// than the job has, the list starts over (Hydra's fork launcher writes
// "(vector,(0,1,1))" for any number of ranks on one host). An empty mapping
// says nothing: nil, nil.
func localRanksFromMapping(mapping string, rank, size int) ([]int, error) {
	s := strings.TrimSpace(mapping)
	if s == "" {
		return nil, nil
	}
	bad := func(why string) error {
		return fmt.Errorf("pmi: bad %s %q: %s", processMappingKey, mapping, why)
	}
	if !strings.HasPrefix(s, "(") || !strings.HasSuffix(s, ")") {
		return nil, bad("not in parentheses")
	}
	s = strings.TrimSpace(s[1 : len(s)-1])
	kind, rest, _ := strings.Cut(s, ",")
	if strings.TrimSpace(kind) != "vector" {
		return nil, bad("not a vector")
	}
	type block struct{ node, count, per int }
	var blocks []block
	covered := 0
	for rest = strings.TrimSpace(rest); rest != ""; {
		if rest[0] != '(' {
			return nil, bad("expected a (node,count,per-node) block")
		}
		end := strings.IndexByte(rest, ')')
		if end < 0 {
			return nil, bad("unclosed block")
		}
		f := strings.Split(rest[1:end], ",")
		if len(f) != 3 {
			return nil, bad("a block needs three numbers")
		}
		var b [3]int
		for i, x := range f {
			n, err := strconv.Atoi(strings.TrimSpace(x))
			if err != nil || n < 0 {
				return nil, bad(fmt.Sprintf("%q is not a count", x))
			}
			b[i] = n
		}
		if b[1] == 0 || b[2] == 0 {
			return nil, bad("a block of no ranks")
		}
		blocks = append(blocks, block{b[0], b[1], b[2]})
		covered += b[1] * b[2]
		rest = strings.TrimSpace(rest[end+1:])
		rest = strings.TrimSpace(strings.TrimPrefix(rest, ","))
	}
	if len(blocks) == 0 {
		return nil, nil
	}
	if rank < 0 || rank >= size {
		return nil, fmt.Errorf("pmi: rank %d is not in a job of %d", rank, size)
	}
	// nodeOf walks the blocks, wrapping around.
	nodeOf := func(r int) int {
		r %= covered
		for _, b := range blocks {
			if n := b.count * b.per; r >= n {
				r -= n
				continue
			}
			return b.node + r/b.per
		}
		return -1 // not reached: r < covered
	}
	mine := nodeOf(rank)
	var local []int
	for r := range size {
		if nodeOf(r) == mine {
			local = append(local, r)
		}
	}
	return local, nil
}
