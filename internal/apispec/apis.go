package apispec

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
)

// Entry mirrors the parts of an apis.json entry the generators read.
type Entry struct {
	Name       string `json:"name"`
	ReturnKind string `json:"return_kind"`
	Attributes struct {
		CExpressible bool `json:"c_expressible"`
		Callback     bool `json:"callback"`
		Predefined   any  `json:"predefined_function"`
		Deprecated   bool `json:"deprecated"`
		F90          bool `json:"f90_expressible"`
		F08          bool `json:"f08_expressible"`
	} `json:"attributes"`
	Parameters []struct {
		Name      string `json:"name"`
		Kind      string `json:"kind"`
		Dir       string `json:"param_direction"`
		Pointer   *bool  `json:"pointer"`
		Length    any    `json:"length"`
		Constant  any    `json:"constant"` // true, false or the string "true"
		FuncType  string `json:"func_type"`
		LargeOnly bool   `json:"large_only"`
		Suppress  string `json:"suppress"`
		Optional  bool   `json:"optional"`
	} `json:"parameters"`
}

// kindType gives the C base type of a parameter kind in the standard (small-count)
// binding and, for the POLY kinds, in the large-count (_c) binding.
var kindType = map[string][2]string{
	"ACCESS_MODE":            {"int"},
	"ALLOC_MEM_NUM_BYTES":    {"MPI_Aint"},
	"ARGUMENT_COUNT":         {"int"},
	"ARGUMENT_LIST":          {"char"},
	"ARRAY_LENGTH":           {"int"},
	"ARRAY_LENGTH_NNI":       {"int"},
	"ARRAY_LENGTH_PI":        {"int"},
	"ASSERT":                 {"int"},
	"ATTRIBUTE_VAL":          {"void"},
	"ATTRIBUTE_VAL_10":       {"void"},
	"BIND_TYPE":              {"int"},
	"BUFFER":                 {"void"},
	"C_BUFFER":               {"void"},
	"C_BUFFER2":              {"void"},
	"C_BUFFER3":              {"void"},
	"C_BUFFER4":              {"void"},
	"CALLBACK_SAFETY":        {"MPI_T_cb_safety"},
	"CAT_INDEX":              {"int"},
	"COLOR":                  {"int"},
	"COMBINER":               {"int"},
	"COMMUNICATOR":           {"MPI_Comm"},
	"COMM_COMPARISON":        {"int"},
	"COMM_SIZE":              {"int"},
	"COMM_SIZE_PI":           {"int"},
	"COORDINATE":             {"int"},
	"CVAR":                   {"MPI_T_cvar_handle"},
	"CVAR_INDEX":             {"int"},
	"CVAR_INDEX_SPECIAL":     {"int"},
	"DATATYPE":               {"MPI_Datatype"},
	"DEGREE":                 {"int"},
	"DIMENSION":              {"int"},
	"DISPLACEMENT":           {"MPI_Aint"},
	"DISPLACEMENT_NNI":       {"MPI_Aint"},
	"DISPOFFSET_SMALL":       {"MPI_Aint"},
	"DISTRIB_ENUM":           {"int"},
	"DROPPED_COUNT":          {"MPI_Count"},
	"DTYPE_DISTRIBUTION":     {"int"},
	"ERRHANDLER":             {"MPI_Errhandler"},
	"ERROR_CLASS":            {"int"},
	"ERROR_CODE":             {"int"},
	"EVENT_CB_FUNCTION":      {"MPI_T_event_cb_function"},
	"EVENT_DROP_CB_FUNCTION": {"MPI_T_event_dropped_cb_function"},
	"EVENT_FREE_CB_FUNCTION": {"MPI_T_event_free_cb_function"},
	"EVENT_INDEX":            {"int"},
	"EVENT_INSTANCE":         {"MPI_T_event_instance"},
	"EVENT_REGISTRATION":     {"MPI_T_event_registration"},
	"EXTRA_STATE":            {"void"},
	"EXTRA_STATE2":           {"void"},
	"F08_STATUS":             {"MPI_F08_status"},
	"F90_COMM":               {"MPI_Fint"},
	"F90_DATATYPE":           {"MPI_Fint"},
	"F90_ERRHANDLER":         {"MPI_Fint"},
	"F90_FILE":               {"MPI_Fint"},
	"F90_GROUP":              {"MPI_Fint"},
	"F90_INFO":               {"MPI_Fint"},
	"F90_MESSAGE":            {"MPI_Fint"},
	"F90_OP":                 {"MPI_Fint"},
	"F90_REQUEST":            {"MPI_Fint"},
	"F90_SESSION":            {"MPI_Fint"},
	"F90_STATUS":             {"MPI_Fint"},
	"F90_WIN":                {"MPI_Fint"},
	"FILE":                   {"MPI_File"},
	"FILE_DESCRIPTOR":        {"int"},
	"GENERIC_DTYPE_COUNT":    {"MPI_Count"},
	"GENERIC_DTYPE_INT":      {"int"},
	"GROUP":                  {"MPI_Group"},
	"GROUP_COMPARISON":       {"int"},
	"INDEX":                  {"int"},
	"INFO":                   {"MPI_Info"},
	"INFO_VALUE_LENGTH":      {"int"},
	"KEY":                    {"int"},
	"KEYVAL":                 {"int"},
	"KEY_INDEX":              {"int"},
	"LOCATION_SMALL":         {"MPI_Aint"},
	"LOCK_TYPE":              {"int"},
	"LOGICAL":                {"int"},
	"LOGICAL_OPTIONAL":       {"int"},
	"MATH":                   {"int"},
	"MESSAGE":                {"MPI_Message"},
	"NUM_BYTES":              {"MPI_Count"},
	"NUM_BYTES_SMALL":        {"int"},
	"NUM_DIMS":               {"int"},
	"OFFSET":                 {"MPI_Offset"},
	"OPERATION":              {"MPI_Op"},
	"ORDER":                  {"int"},
	"PARTITION":              {"int"},
	"PROCESS_GRID_SIZE":      {"int"},
	"PROFILE_LEVEL":          {"int"},
	"PVAR":                   {"MPI_T_pvar_handle"},
	"PVAR_CLASS":             {"int"},
	"PVAR_INDEX":             {"int"},
	"PVAR_SESSION":           {"MPI_T_pvar_session"},
	"RANK":                   {"int"},
	"RANK_NNI":               {"int"},
	"REQUEST":                {"MPI_Request"},
	"RMA_DISPLACEMENT_NNI":   {"MPI_Aint"},
	"SESSION":                {"MPI_Session"},
	"SOURCE_INDEX":           {"int"},
	"SOURCE_ORDERING":        {"MPI_T_source_order"},
	"SPLIT_TYPE":             {"int"},
	"STATUS":                 {"MPI_Status"},
	"STRING":                 {"char"},
	"STRING_2DARRAY":         {"char"},
	"STRING_ARRAY":           {"char"},
	"STRING_LENGTH":          {"int"},
	"TAG":                    {"int"},
	"THREAD_LEVEL":           {"int"},
	"TOOLENUM_INDEX":         {"int"},
	"TOOLENUM_SIZE":          {"int"},
	"TOOLS_ENUM":             {"MPI_T_enum"},
	"TOOLS_NUM_ELEM_SMALL":   {"int"},
	"TOOLS_TICK_COUNT":       {"MPI_Count"},
	"TOOL_MPI_OBJ":           {"void"},
	"TOOL_VAR_VALUE":         {"int"},
	"TOOL_VAR_VERBOSITY":     {"int"},
	"TOPOLOGY_TYPE":          {"int"},
	"TYPECLASS":              {"int"},
	"TYPECLASS_SIZE":         {"int"},
	"UPDATE_MODE":            {"int"},
	"UPDATE_NUMBER":          {"int"},
	"VARIABLE_SCOPE":         {"int"},
	"VERSION":                {"int"},
	"WEIGHT":                 {"int"},
	"WINDOW":                 {"MPI_Win"},
	"WINDOW_SIZE":            {"MPI_Aint"},
	"WIN_ATTACH_SIZE":        {"MPI_Aint"},
	"XFER_NUM_ELEM":          {"MPI_Count"},
	"XFER_NUM_ELEM_NNI":      {"MPI_Count"},
	"XFER_NUM_ELEM_SMALL":    {"int"},

	// Kinds whose C type grows in the large-count binding.
	"POLYDISPLACEMENT":            {"int", "MPI_Aint"},
	"POLYDISPLACEMENT_AINT_COUNT": {"MPI_Aint", "MPI_Count"},
	"POLYDISPLACEMENT_COUNT":      {"int", "MPI_Count"},
	"POLYDISPOFFSET":              {"MPI_Aint", "MPI_Count"},
	"POLYDTYPE_NUM_ELEM":          {"int", "MPI_Count"},
	"POLYDTYPE_NUM_ELEM_NNI":      {"int", "MPI_Count"},
	"POLYDTYPE_NUM_ELEM_PI":       {"int", "MPI_Count"},
	"POLYDTYPE_PACK_SIZE":         {"MPI_Aint", "MPI_Count"},
	"POLYDTYPE_STRIDE_BYTES":      {"MPI_Aint", "MPI_Count"},
	"POLYLOCATION":                {"MPI_Aint", "MPI_Count"},
	"POLYNUM_BYTES":               {"int", "MPI_Count"},
	"POLYNUM_BYTES_NNI":           {"int", "MPI_Count"},
	"POLYNUM_PARAM_VALUES":        {"int", "MPI_Count"},
	"POLYRMA_DISPLACEMENT":        {"int", "MPI_Aint"},
	"POLYXFER_NUM_ELEM":           {"int", "MPI_Count"},
	"POLYXFER_NUM_ELEM_NNI":       {"int", "MPI_Count"},
}

// returnType maps a return kind to its C type.
var returnType = map[string]string{
	"ERROR_CODE": "int", "ERROR_CLASS": "int", "NOTHING": "void",
	"LOCATION_SMALL": "MPI_Aint", "DISPLACEMENT": "MPI_Aint",
	"TICK_RESOLUTION": "double", "WALL_TIME": "double",
	"F90_COMM": "MPI_Fint", "F90_DATATYPE": "MPI_Fint", "F90_ERRHANDLER": "MPI_Fint", "F90_FILE": "MPI_Fint",
	"F90_GROUP": "MPI_Fint", "F90_INFO": "MPI_Fint", "F90_MESSAGE": "MPI_Fint", "F90_OP": "MPI_Fint",
	"F90_REQUEST": "MPI_Fint", "F90_SESSION": "MPI_Fint", "F90_WIN": "MPI_Fint",
	"COMMUNICATOR": "MPI_Comm", "DATATYPE": "MPI_Datatype", "ERRHANDLER": "MPI_Errhandler",
	"FILE": "MPI_File", "GROUP": "MPI_Group", "INFO": "MPI_Info", "MESSAGE": "MPI_Message",
	"OPERATION": "MPI_Op", "REQUEST": "MPI_Request", "SESSION": "MPI_Session", "WINDOW": "MPI_Win",
}

// noPointerForOut lists kinds that are already addresses, so an out/inout parameter of
// that kind does not get an extra '*'.
var noPointerForOut = map[string]bool{
	"BUFFER": true, "C_BUFFER": true, "C_BUFFER2": true, "C_BUFFER3": true, "C_BUFFER4": true,
	"ATTRIBUTE_VAL": true, "ATTRIBUTE_VAL_10": true, "STRING": true, "EXTRA_STATE": true,
	"STATUS": true, "F90_STATUS": true, "F08_STATUS": true, "TOOL_MPI_OBJ": true,
}

// alwaysPointer lists kinds that are pointers even for input.
var alwaysPointer = map[string]int{
	"BUFFER": 1, "C_BUFFER": 1, "C_BUFFER2": 1, "C_BUFFER3": 1, "C_BUFFER4": 1,
	"ATTRIBUTE_VAL": 1, "ATTRIBUTE_VAL_10": 1, "EXTRA_STATE": 1, "EXTRA_STATE2": 1,
	"TOOL_MPI_OBJ": 1, "STATUS": 1, "F90_STATUS": 1, "F08_STATUS": 1, "STRING": 1,
	"STRING_ARRAY": 2, "STRING_2DARRAY": 2, "ARGUMENT_LIST": 3,
}

// LoadEntries reads apis.json as it is, keyed by lowercase procedure name: the
// procedures with no C binding and the predefined callbacks included.
func LoadEntries(path string) (map[string]Entry, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var all map[string]Entry
	if err := json.Unmarshal(raw, &all); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return all, nil
}

// LoadAPIs reads apis.json and returns every C procedure, large-count variants included.
func LoadAPIs(path string) ([]*Proc, error) {
	all, err := LoadEntries(path)
	if err != nil {
		return nil, err
	}
	keys := make([]string, 0, len(all))
	for k := range all {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var procs []*Proc
	for _, k := range keys {
		j := all[k]
		a := j.Attributes
		if !a.CExpressible || a.Callback || a.Predefined != nil {
			continue // callbacks are typedefs; predefined callbacks are macros in mpi.h
		}
		small, err := convert(j, false)
		if err != nil {
			return nil, err
		}
		procs = append(procs, small)
		if hasPoly(j) {
			large, err := convert(j, true)
			if err != nil {
				return nil, err
			}
			procs = append(procs, large)
		}
	}
	return procs, nil
}

func hasPoly(j Entry) bool {
	for _, p := range j.Parameters {
		if strings.HasPrefix(p.Kind, "POLY") || p.LargeOnly {
			return true
		}
	}
	return false
}

func convert(j Entry, large bool) (*Proc, error) {
	f := &Proc{Name: j.Name, Large: large, F90: j.Attributes.F90, F08: j.Attributes.F08,
		Deprecated: j.Attributes.Deprecated}
	if large {
		f.Name += "_c"
	}
	ret, ok := returnType[j.ReturnKind]
	if !ok {
		return nil, fmt.Errorf("%s: unknown return kind %s", j.Name, j.ReturnKind)
	}
	f.Ret = ret
	for _, jp := range j.Parameters {
		if jp.Name == "ierror" && jp.Kind == "ERROR_CODE" {
			f.Ierror = true
		}
		if strings.Contains(jp.Suppress, "c_parameter") || (jp.LargeOnly && !large) {
			continue
		}
		p := Param{Name: jp.Name, Kind: jp.Kind, Dir: jp.Dir, Suppress: jp.Suppress, Optional: jp.Optional}
		if jp.Kind == "VARARGS" {
			p.Varargs = true
			f.Params = append(f.Params, p)
			continue
		}
		t, ok := kindType[jp.Kind]
		if !ok && jp.FuncType == "" {
			return nil, fmt.Errorf("%s.%s: unknown kind %s", j.Name, jp.Name, jp.Kind)
		}
		p.Base = t[0]
		if large && t[1] != "" {
			p.Base = t[1]
		}
		if jp.FuncType != "" {
			p.Base = jp.FuncType
			if large && strings.HasPrefix(jp.Kind, "POLY") {
				p.Base += "_c"
			}
			p.Ptr = 1
		}
		p.Const = jp.Constant == true || jp.Constant == "true"
		p.Array = jp.Length != nil
		if l, ok := jp.Length.(string); ok && l != "*" {
			p.Length = l
			if strings.HasPrefix(l, "MPI_") {
				p.LengthConst, p.Length = l, ""
			}
		}
		if dims, ok := jp.Length.([]any); ok && len(dims) == 2 {
			p.Inner = fmt.Sprint(dims[1]) // int ranges[][3]
		}
		switch {
		case p.Array && (jp.Kind == "STRING" || jp.Kind == "STATUS"):
			// char name[], MPI_Status statuses[]: the array is the address.
		case jp.Kind == "ARGUMENT_LIST":
			// char ***argv for MPI_Init(_thread); char *argv[] for MPI_Info_create_env.
			if p.Array && jp.Pointer != nil && !*jp.Pointer {
				p.Ptr = 1
			} else {
				p.Array, p.Ptr = false, 3
			}
			f.Params = append(f.Params, p)
			continue
		case strings.HasSuffix(jp.Kind, "_FUNCTION"):
			p.Ptr = 1 // MPI_T_event_cb_function *fn: the typedefs are function types
		default:
			p.Ptr += alwaysPointer[jp.Kind]
		}
		byRef := (jp.Dir == "out" || jp.Dir == "inout") && !p.Array && !noPointerForOut[jp.Kind]
		if jp.Pointer != nil {
			byRef = *jp.Pointer && !p.Array && !noPointerForOut[jp.Kind]
		}
		if byRef {
			p.Ptr++
		}
		f.Params = append(f.Params, p)
	}
	return f, nil
}
