// Package jupyter is the notebook side of the kernel: the "Go (eqf)" Jupyter kernel spec
// (kernel.sh, written by `make kernel`), GoNB and its tools pinned in tools/go.mod (built by `make
// gonb`), and the tests that check the committed notebooks and execute them headless.
//
// New user: `make jupyter` installs Debian's Jupyter, builds GoNB v0.11.5, goimports and gopls,
// registers the kernel and starts the notebook server on localhost (with a token) in notebooks/.
package jupyter

// KernelName is the kernel spec's name (its display name is "Go (eqf)").
const KernelName = "eqf"

// SetupCell is the source of the one set-up cell every notebook starts with (checked by the
// tests): the kernel's go.work already uses the checkout, whose go.mod requires GoNB v0.11.5
// (its display package comes from there, no `go get`), so the cell only fixes go.work for gopls.
const SetupCell = "%goworkfix"
