package cvar

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func lookupEnvForTest(name string) (string, bool) { return os.LookupEnv(name) }

// readmeRows returns the rows of README.md's environment-variable table: the first
// cell's variable names, each mapped to the row's default cell.
func readmeRows(t *testing.T) map[string]string {
	raw, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	require.NoError(t, err)
	_, section, ok := strings.Cut(string(raw), "\n## Environment variables\n")
	require.True(t, ok, "README.md has no Environment variables section")
	if i := strings.Index(section, "\n## "); i >= 0 {
		section = section[:i]
	}
	rows := map[string]string{}
	for _, line := range strings.Split(section, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 4 || !strings.HasPrefix(strings.TrimSpace(line), "|") {
			continue
		}
		for _, name := range strings.Split(cells[1], ",") {
			name = strings.Trim(strings.TrimSpace(name), "`")
			if name != "" {
				rows[name] = strings.TrimSpace(cells[2])
			}
		}
	}
	return rows
}

// Every registered knob has a row in README.md's table, with its default.
func TestReadmeDocumentsEveryKnob(t *testing.T) {
	rows := readmeRows(t)
	for _, v := range All() {
		if v.Category() == testCat || v.info != nil { // information variables are no knobs
			continue
		}
		def, ok := rows[v.Name()]
		require.True(t, ok, "%s is registered in core/cvar but missing from README.md's environment table", v.Name())
		if v.Default() != "" {
			require.Equal(t, "`"+v.Default()+"`", def, "README.md's default for %s", v.Name())
		}
	}
}
