module github.com/equilibriumforcing/eqf

go 1.27.3

require (
	github.com/gomlx/compute v0.1.14
	github.com/gomlx/gomlx v0.28.16
)

require (
	github.com/go-logr/logr v1.4.3 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/pkg/errors v0.9.1 // indirect
	golang.org/x/exp v0.0.0-20260908205506-85c1c2202aba // indirect
	k8s.io/klog/v2 v2.140.0 // indirect
)
