// RUN: dx-opt --dx-to-linalg --split-input-file --verify-diagnostics %s

// What the CPU code generator rejects, with an error at the op (dxc maps
// the op's location back to the .dx source).

func.func @upsample_bicubic(%x: tensor<?x2x4x4xf32>) -> tensor<?x2x8x8xf32> {
  // expected-error@+1 {{upsample mode 'bicubic' is not supported by the CPU code generator yet}}
  %0 = dx.upsample %x {mode = "bicubic", scale = array<i64: 2, 2>} : (tensor<?x2x4x4xf32>) -> tensor<?x2x8x8xf32>
  return %0 : tensor<?x2x8x8xf32>
}

// -----

func.func @upsample_grad_bicubic(%dy: tensor<?x2x8x8xf32>) -> tensor<?x2x4x4xf32> {
  // expected-error@+1 {{upsample mode 'bicubic' is not supported by the CPU code generator yet}}
  %0 = dx.upsample_grad %dy {mode = "bicubic", scale = array<i64: 2, 2>} : (tensor<?x2x8x8xf32>) -> tensor<?x2x4x4xf32>
  return %0 : tensor<?x2x4x4xf32>
}

// -----

// A training-mode function must carry the step's random key (seed, step,
// rank) as a {dx.rng} argument for dropout to draw its mask.
func.func @m_train_step(%x: tensor<?x6xf32> {dx.input = "x"}) -> tensor<?x6xf32> attributes {dx.mode = "train"} {
  // expected-error@+1 {{random op outside a training function (no dx.rng argument)}}
  %0 = dx.dropout %x {p = 5.000000e-01 : f64, stream = 1 : i64} : (tensor<?x6xf32>) -> tensor<?x6xf32>
  return %0 : tensor<?x6xf32>
}

// -----

func.func @m_train_step(%x: tensor<?x6xf32> {dx.input = "x"}) -> tensor<?x6xf32> attributes {dx.mode = "train"} {
  // expected-error@+1 {{random op outside a training function (no dx.rng argument)}}
  %0 = dx.randn_like %x {stream = 2 : i64} : (tensor<?x6xf32>) -> tensor<?x6xf32>
  return %0 : tensor<?x6xf32>
}
