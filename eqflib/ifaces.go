package eqflib

// Which type implements which interface, checked by the compiler: a method renamed or a
// signature changed in one of them fails the build here, not in a caller far away.
var (
	_ Field = (*Oracle)(nil)
	_ Field = (*DiT)(nil)
	_ Field = (*conditionedDiT)(nil)
	_ Field = (*guided)(nil)
	_ Field = (*GraphField)(nil)

	_ Conditioner = (*DiT)(nil)
	_ Conditioner = (*guided)(nil)

	// The fields whose sampler state can live on the backend (stepgraph.go).
	_ stateField = (*DiT)(nil)
	_ stateField = (*conditionedDiT)(nil)
	_ stateField = (*guided)(nil)
	_ stepState  = (*graphState)(nil)

	_ NoiseEstimator = (*Oracle)(nil)
	_ NoiseEstimator = (*NoisePredictor)(nil)

	_ Warp = identityWarp{}
	_ Warp = sd3Warp{}
	_ Warp = (*CFunction)(nil)
	_ Warp = logSNRWarp{}

	_ FeatureExtractor = (*ActionNet)(nil)
	_ FeatureExtractor = PixelFeatures{}

	// The samplers' step rules (rule.go); early stopping also settles its chunks.
	_ rule      = eulerRule{}
	_ rule      = gdRule{}
	_ rule      = nagRule{}
	_ rule      = budgetRule{}
	_ rule      = earlyStopRule{}
	_ rule      = ddimRule{}
	_ chunkRule = earlyStopRule{}
)
