// Package eqflib implements Equilibrium Forcing (EqF): video denoising models trained without
// noise-level conditioning and sampled in a closed loop, where a readout of the model's own
// activations estimates each frame's noise level and sets its step size. It runs on GoMLX (the
// pure-Go backend by default, XLA on a GPU with -tags xla).
//
// References are to the paper's arXiv version (sections, equations, algorithms, appendices).
// Where each part of the paper lives:
//
//	§2.1 noising process, Eq. 1              noise.go
//	§2.1 Eq. 2, §4.1 Eq. 4, §5.1, App. A.1   objective.go (FM, EqF, EqM, NU-FM), diffusion.go (the Diffusion baseline)
//	§2.2 autoregressive video denoising      rollout.go (App. I: Alg. outer_rolling_inference, inner_denoising_loop), engine.go
//	§3, App. B analyses                      analysis.go (termination levels, bowls, field agreement), plots/ draws them
//	§4.2 Prop. 4.1, App. A.3                 oracle.go (the exact Bayes-optimal fields for Gaussian mixtures)
//	§4.3 readout h_ω, App. F                 readout.go (h_ω, the framewise predictor g_φ, SigmaMAE)
//	§4.3 Eq. 7, §4.4, App. G warps           warp.go (identity, SD3, c-function, linear log-SNR; schedules)
//	§4.3–4.5 samplers                        rule.go (a sampler is a per-frame rule; the design),
//	                                         sampler.go (the Field/Options contract), one rule per file:
//	                                         euler.go, gd.go, nag.go (App. H, Alg. nag_sampling_step),
//	                                         budget.go (Alg. 1), earlystop.go (App. C.1), ddim.go;
//	                                         engine.go (the one loop that drives every rule)
//	App. C.3 inpainting                      inpaint.go
//	App. J online replanning                 replan.go
//	App. D backbone and training             dit.go, ditfield.go (the video DiT as a Field), train.go,
//	                                         optim.go, checkpoint.go, trainpreset.go, dataparallel.go
//	App. E equilibrium finetuning            train.go (EquilibriumFinetune)
//	App. D.1 metrics, FVD                    metrics.go, frechet.go, actionnet.go ("maze-I3D"),
//	                                         quality.go (action agreement, colour drift, next-chunk error),
//	                                         eqflib/onnxfeat (FVD in any ONNX video network's features)
//
// Not from the paper: the exact oracle (docs/derivations.md derives it and every golden number
// the tests check), GraphField (graphfield.go: any GoMLX graph function as a Field), Window
// (window.go: host-side [B, T, C, H, W] frames) and the backend selection (backend.go).
package eqflib
