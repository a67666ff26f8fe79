package data

// Which type implements which interface, checked by the compiler (dataset_iface_test.go checks
// the datasets against eqflib.Dataset, which this package does not import).
var (
	_ World = (*Maze)(nil)
	_ World = (*Shapes)(nil)
	_ World = (*Pan)(nil)
)
