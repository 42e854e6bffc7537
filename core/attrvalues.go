package core

// Values of predefined attributes that come from the process manager
// (MPI_UNIVERSE_SIZE, MPI_APPNUM); capi/attr.go answers MPI_Comm_get_attr with them.

// UniverseSize is the number of processes the job could have (MPI_UNIVERSE_SIZE): what
// the process manager announces, the size of MPI_COMM_WORLD when it knows no more.
func UniverseSize() int {
	if c := proc.pmi; c != nil && c.UniverseSize() > 0 {
		return c.UniverseSize()
	}
	return CommWorld.Size
}

// AppNum is the index of this process's program on the launcher's command line
// (MPI_APPNUM): 0 unless the job was started with several programs.
func AppNum() int {
	if c := proc.pmi; c != nil {
		return c.AppNum()
	}
	return 0
}
