package cvar

import "fmt"

// Category groups variables for MPI_T: control variables, performance variables
// (added by core/pvar) and subcategories. Categories form a tree under Root.
type Category struct {
	name, desc string
	index      int
	// Members by MPI_T index, in registration order (guarded by mu).
	cvars, pvars, subs []int
}

// NewCategory registers a category under parent (nil for a top-level one). Like
// the variable constructors it panics on a duplicate name.
func NewCategory(name, desc string, parent *Category) *Category {
	mu.Lock()
	defer mu.Unlock()
	if name == "" || catByName[name] != nil {
		panic(fmt.Sprintf("cvar: category %q is empty or registered twice", name))
	}
	c := &Category{name: name, desc: desc, index: len(cats)}
	cats = append(cats, c)
	catByName[name] = c
	if parent != nil {
		parent.subs = append(parent.subs, c.index)
	}
	stamp.Add(1)
	return c
}

// Name is the category's MPI_T name.
func (c *Category) Name() string { return c.name }

// Desc is the description.
func (c *Category) Desc() string { return c.desc }

// Index is the category's MPI_T index.
func (c *Category) Index() int { return c.index }

// Cvars returns the MPI_T indices of the control variables in c.
func (c *Category) Cvars() []int { return c.members(&c.cvars) }

// Pvars returns the MPI_T indices of the performance variables in c.
func (c *Category) Pvars() []int { return c.members(&c.pvars) }

// Subcategories returns the MPI_T indices of c's subcategories.
func (c *Category) Subcategories() []int { return c.members(&c.subs) }

func (c *Category) members(list *[]int) []int {
	mu.Lock()
	defer mu.Unlock()
	return append([]int(nil), *list...)
}

// AddPvar records that the performance variable with MPI_T index i belongs to c.
// core/pvar calls it when it registers a variable.
func (c *Category) AddPvar(i int) {
	mu.Lock()
	c.pvars = append(c.pvars, i)
	mu.Unlock()
	stamp.Add(1)
}

// Categories returns every category in index order.
func Categories() []*Category {
	mu.Lock()
	defer mu.Unlock()
	return append([]*Category(nil), cats...)
}

// CategoryByIndex returns the category with MPI_T index i.
func CategoryByIndex(i int) (*Category, bool) {
	mu.Lock()
	defer mu.Unlock()
	if i < 0 || i >= len(cats) {
		return nil, false
	}
	return cats[i], true
}

// LookupCategory returns the category with the given name.
func LookupCategory(name string) (*Category, bool) {
	mu.Lock()
	defer mu.Unlock()
	c, ok := catByName[name]
	return c, ok
}
