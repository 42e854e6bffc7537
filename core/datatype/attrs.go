package datatype

// LastHandle reports whether t is a derived type whose user holds one handle, so that
// MPI_Type_free releases the last one: the type's attributes are deleted then, before
// the free (and a delete callback's error stops it).
func (t *Type) LastHandle() bool { return t.kind == kindDerived && t.userRefs.Load() == 1 }
