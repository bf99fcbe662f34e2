// RUN: dx-opt --split-input-file --verify-diagnostics %s

// The dx ops' verifiers re-run the operator registry's shape rules.

func.func @dense_ok(%x: tensor<?x4xf32>, %w: tensor<8x4xf32>, %b: tensor<8xf32>) -> tensor<?x8xf32> {
  %0 = dx.dense %x params(%w, %b) {bias = true, units = 8 : i64} : (tensor<?x4xf32>, tensor<8x4xf32>, tensor<8xf32>) -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

func.func @dense_bad_result(%x: tensor<?x4xf32>, %w: tensor<8x4xf32>, %b: tensor<8xf32>) -> tensor<?x9xf32> {
  // expected-error@+1 {{'dx.dense' op result 0 should be 'tensor<?x8xf32>' by the shape rule, not 'tensor<?x9xf32>'}}
  %0 = dx.dense %x params(%w, %b) {bias = true, units = 8 : i64} : (tensor<?x4xf32>, tensor<8x4xf32>, tensor<8xf32>) -> tensor<?x9xf32>
  return %0 : tensor<?x9xf32>
}

// -----

func.func @dense_bad_weight(%x: tensor<?x4xf32>, %w: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<?x8xf32> {
  // expected-error@+1 {{'dx.dense' op parameter 'weight' should be 'tensor<8x4xf32>', not 'tensor<4x8xf32>'}}
  %0 = dx.dense %x params(%w, %b) {bias = true, units = 8 : i64} : (tensor<?x4xf32>, tensor<4x8xf32>, tensor<8xf32>) -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

func.func @dense_missing_bias(%x: tensor<?x4xf32>, %w: tensor<8x4xf32>) -> tensor<?x8xf32> {
  // expected-error@+1 {{'dx.dense' op expects 2 parameter operands, got 1}}
  %0 = dx.dense %x params(%w) {bias = true, units = 8 : i64} : (tensor<?x4xf32>, tensor<8x4xf32>) -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

func.func @conv_rank(%x: tensor<?x4xf32>, %w: tensor<8x4x3x3xf32>) -> tensor<?x8x1x1xf32> {
  // expected-error@+1 {{'dx.conv2d' op conv2d expects a 4-D input [N, C, H, W], got f32[?, 4]}}
  %0 = dx.conv2d %x params(%w) {bias = false, dilation = array<i64: 1, 1>, filters = 8 : i64, groups = 1 : i64, kernel = array<i64: 3, 3>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<?x4xf32>, tensor<8x4x3x3xf32>) -> tensor<?x8x1x1xf32>
  return %0 : tensor<?x8x1x1xf32>
}

// -----

func.func @conv_bad_attr(%x: tensor<?x4x8x8xf32>, %w: tensor<8x4x3x3xf32>) -> tensor<?x8x6x6xf32> {
  // expected-error@+1 {{'dx.conv2d' op attribute 'pad' is missing or malformed}}
  %0 = dx.conv2d %x params(%w) {bias = false, dilation = array<i64: 1, 1>, filters = 8 : i64, groups = 1 : i64, kernel = array<i64: 3, 3>, pad = array<i64: 0, 0>, stride = array<i64: 1, 1>} : (tensor<?x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<?x8x6x6xf32>
  return %0 : tensor<?x8x6x6xf32>
}

// -----

func.func @add_broadcast(%a: tensor<?x4xf32>, %b: tensor<3xf32>) -> tensor<?x4xf32> {
  // expected-error@+1 {{'dx.add' op add: shapes [?, 4] and [3] cannot be broadcast together}}
  %0 = dx.add %a, %b : (tensor<?x4xf32>, tensor<3xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// A 3-D convolution's attributes hold one value per spatial dim: a 2-D
// stride on conv3d is malformed.
func.func @conv3d_stride_2d(%x: tensor<?x2x4x4x4xf32>, %w: tensor<3x2x1x1x1xf32>) -> tensor<?x3x4x4x4xf32> {
  // expected-error@+1 {{'dx.conv3d' op attribute 'stride' is missing or malformed}}
  %0 = dx.conv3d %x params(%w) {bias = false, dilation = array<i64: 1, 1, 1>, filters = 3 : i64, groups = 1 : i64, kernel = array<i64: 1, 1, 1>, pad = array<i64: 0, 0, 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<?x2x4x4x4xf32>, tensor<3x2x1x1x1xf32>) -> tensor<?x3x4x4x4xf32>
  return %0 : tensor<?x3x4x4x4xf32>
}

// -----

func.func @conv_grad_mixed_ranks(%dy: tensor<?x3x4x4x4xf32>, %w: tensor<3x2x1x1xf32>) -> tensor<?x2x4x4x4xf32> {
  // expected-error@+1 {{'dx.conv2d_grad_input' op expects dy, weight and dx all 4-D or all 5-D}}
  %0 = dx.conv2d_grad_input %dy, %w {dilation = array<i64: 1, 1, 1>, groups = 1 : i64, pad = array<i64: 0, 0, 0, 0, 0, 0>, stride = array<i64: 1, 1, 1>} : (tensor<?x3x4x4x4xf32>, tensor<3x2x1x1xf32>) -> tensor<?x2x4x4x4xf32>
  return %0 : tensor<?x2x4x4x4xf32>
}

// -----

func.func @conv_grad_5d_2d_attrs(%dy: tensor<?x3x4x4x4xf32>, %w: tensor<3x2x1x1x1xf32>) -> tensor<?x2x4x4x4xf32> {
  // expected-error@+1 {{'dx.conv2d_grad_input' op expects one stride and dilation per spatial dim, two paddings per spatial dim and groups >= 1}}
  %0 = dx.conv2d_grad_input %dy, %w {dilation = array<i64: 1, 1>, groups = 1 : i64, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<?x3x4x4x4xf32>, tensor<3x2x1x1x1xf32>) -> tensor<?x2x4x4x4xf32>
  return %0 : tensor<?x2x4x4x4xf32>
}

// -----

func.func @pool_grad_5d_2d_window(%dy: tensor<?x2x2x2x2xf32>, %x: tensor<?x2x4x4x4xf32>) -> tensor<?x2x4x4x4xf32> {
  // expected-error@+1 {{'dx.pool_grad' op expects 4-D or 5-D x, one window and stride value per spatial dim and two paddings}}
  %0 = dx.pool_grad "max" %dy, %x {kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<?x2x2x2x2xf32>, tensor<?x2x4x4x4xf32>) -> tensor<?x2x4x4x4xf32>
  return %0 : tensor<?x2x4x4x4xf32>
}
