package data_test

import (
	"github.com/equilibriumforcing/eqf/data"
	"github.com/equilibriumforcing/eqf/eqflib"
)

// The datasets implement eqflib.Dataset, the interface training reads (data itself knows no
// model, so the check lives in its tests).
var (
	_ eqflib.Dataset = (*data.WorldDataset)(nil)
	_ eqflib.Dataset = (*data.ClipDataset)(nil)
)
