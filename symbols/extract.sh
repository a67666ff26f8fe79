#!/bin/sh
# extract.sh DIR: write the yaegi symbol tables into DIR (go generate passes "."; the Makefile's
# symbols-check passes a temporary folder). DIR must lie inside this module. The package list
# is kept here, in one place.
set -e
cd "$1"
# HalfPrecision* are generic interfaces in dtypes, which yaegi extract cannot wrap.
exec go tool yaegi extract -name symbols -exclude "^HalfPrecision" \
	github.com/equilibriumforcing/eqf/eqflib \
	github.com/equilibriumforcing/eqf/data \
	github.com/equilibriumforcing/eqf/plots \
	github.com/equilibriumforcing/eqf/zoo \
	github.com/equilibriumforcing/eqf/paper \
	github.com/equilibriumforcing/eqf/symbols/eqf \
	github.com/gomlx/gomlx/core/graph \
	github.com/gomlx/gomlx/core/tensors \
	github.com/gomlx/compute \
	github.com/gomlx/compute/shapes \
	github.com/gomlx/compute/dtypes
