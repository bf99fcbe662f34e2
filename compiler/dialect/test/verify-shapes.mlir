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
