// RUN: lanearena-run %s --seed 0 --verbose > %t.before
// RUN: lanearena-opt %s -p memref-arena-place | tee %t.placed | lanearena-run - --seed 0 --verbose > %t.after
// RUN: diff %t.before %t.after
// RUN: filecheck %s --input-file=%t.placed

// gpt2_block (d 8, heads 2, seq 2, ffn 8, vocab 16, layers 1), random weights, exported by torch 2.13.0+cpu
// (torch.export), lowered to linalg on tensors by torch-mlir 20261001, bufferized by iree-opt (iree-base-compiler
// 3.13.0): --linalg-generalize-named-ops '--one-shot-bufferize=bufferize-function-boundaries
// function-boundary-type-conversion=identity-layout-map' --canonicalize --cse --ownership-based-buffer-deallocation
// --canonicalize --buffer-deallocation-simplification --bufferization-lower-deallocations --canonicalize --cse
// --mlir-print-op-generic; with its linalg ops kept. Made by `python bench/mlirgen.py --shapes lit --models
// gpt2_block --lit DIR`.
// Arguments: input, ln_1.weight, ln_1.bias, ln_2.weight, ln_2.bias, c_attn.weight, c_attn.bias, c_proj.weight,
// c_proj.bias, c_fc.weight, c_fc.bias, mlp_proj.weight, mlp_proj.bias.
// 34 buffers placed (escapes through func.return: the result), the arena at the lower bound, 2304 bytes (10752
// without reuse); placed, it runs the same; torch's result on the arguments lanearena-run --seed 0 draws:
// TORCH: [-0.47825, -2.837367, 3.940569, -5.218913, 1.399029, -2.591988, -1.394824, 4.199728, 0.6195354, 1.007896, 6.118495, -5.833366, 4.684647, -1.657831, -0.8547869, -0.08564708]
// CHECK: lanearena.bytes = 2304 : i64, lanearena.lower_bound = 2304 : i64
// CHECK: lanearena.own = "escapes through func.return"

#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> ()>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
#map3 = affine_map<(d0, d1, d2) -> (d2)>
#map4 = affine_map<(d0, d1) -> (d1, d0)>
#map5 = affine_map<(d0, d1) -> (d0, d1)>
#map6 = affine_map<(d0, d1) -> ()>
#map7 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map8 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map9 = affine_map<(d0, d1, d2) -> (d0, d1)>
#map10 = affine_map<(d0, d1) -> (d1)>
#map11 = affine_map<(d0, d1, d2, d3) -> (d0, d2, d1, d3)>
#map12 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map13 = affine_map<(d0, d1, d2, d3) -> (d0, d3, d1, d2)>
#map14 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#map15 = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
#map16 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#map17 = affine_map<(d0) -> (d0)>
#map18 = affine_map<(d0, d1) -> (0, d1)>
#map19 = affine_map<(d0, d1) -> (d0, 0)>
#map20 = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
#map21 = affine_map<(d0, d1, d2, d3) -> ()>
#map22 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>
"builtin.module"() ({
  "memref.global"() <{alignment = 64 : i64, constant, initial_value = dense<true> : tensor<2x2xi1>, sym_name = "__constant_2x2xi1", sym_visibility = "private", type = memref<2x2xi1>}> : () -> ()
  "memref.global"() <{alignment = 64 : i64, constant, initial_value = dense<-3.40282347E+38> : tensor<f32>, sym_name = "__constant_xf32", sym_visibility = "private", type = memref<f32>}> : () -> ()
  "func.func"() <{function_type = (memref<1x2x8xf32>, memref<8xf32>, memref<8xf32>, memref<8xf32>, memref<8xf32>, memref<24x8xf32>, memref<24xf32>, memref<8x8xf32>, memref<8xf32>, memref<32x8xf32>, memref<32xf32>, memref<8x32xf32>, memref<8xf32>) -> memref<1x2x8xf32>, sym_name = "main"}> ({
  ^bb0(%arg0: memref<1x2x8xf32>, %arg1: memref<8xf32>, %arg2: memref<8xf32>, %arg3: memref<8xf32>, %arg4: memref<8xf32>, %arg5: memref<24x8xf32>, %arg6: memref<24xf32>, %arg7: memref<8x8xf32>, %arg8: memref<8xf32>, %arg9: memref<32x8xf32>, %arg10: memref<32xf32>, %arg11: memref<8x32xf32>, %arg12: memref<8xf32>):
    %0 = "arith.constant"() <{value = 2.000000e+00 : f32}> : () -> f32
    %1 = "arith.constant"() <{value = 8.000000e+00 : f32}> : () -> f32
    %2 = "arith.constant"() <{value = 8.000000e+00 : f64}> : () -> f64
    %3 = "arith.constant"() <{value = 1.000000e-05 : f64}> : () -> f64
    %4 = "arith.constant"() <{value = 0 : i64}> : () -> i64
    %5 = "arith.constant"() <{value = 0.000000e+00 : f64}> : () -> f64
    %6 = "arith.constant"() <{value = 0.000000e+00 : f32}> : () -> f32
    %7 = "arith.constant"() <{value = 0xFF800000 : f32}> : () -> f32
    %8 = "arith.constant"() <{value = 3 : i64}> : () -> i64
    %9 = "arith.constant"() <{value = 4.471500e-02 : f32}> : () -> f32
    %10 = "arith.constant"() <{value = 7.977240e-01 : f32}> : () -> f32
    %11 = "arith.constant"() <{value = 1.000000e+00 : f32}> : () -> f32
    %12 = "arith.constant"() <{value = 5.000000e-01 : f32}> : () -> f32
    %13 = "memref.get_global"() <{name = @__constant_xf32}> : () -> memref<f32>
    %14 = "memref.get_global"() <{name = @__constant_2x2xi1}> : () -> memref<2x2xi1>
    %15 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<1x2x8xf64>
    "linalg.generic"(%arg0, %15) <{indexing_maps = [#map, #map], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg189: f32, %arg190: f64):
      %146 = "arith.extf"(%arg189) : (f32) -> f64
      "linalg.yield"(%146) : (f64) -> ()
    }) : (memref<1x2x8xf32>, memref<1x2x8xf64>) -> ()
    %16 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<1x2x1xf64>
    %17 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<1x2x1xf64>
    "linalg.generic"(%5, %17) <{indexing_maps = [#map1, #map], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg187: f64, %arg188: f64):
      "linalg.yield"(%arg187) : (f64) -> ()
    }) : (f64, memref<1x2x1xf64>) -> ()
    %18 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<1x2x1xf64>
    "memref.copy"(%17, %18) : (memref<1x2x1xf64>, memref<1x2x1xf64>) -> ()
    "linalg.generic"(%15, %18) <{indexing_maps = [#map, #map2], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<reduction>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg185: f64, %arg186: f64):
      %145 = "arith.addf"(%arg185, %arg186) <{fastmath = #arith.fastmath<none>}> : (f64, f64) -> f64
      "linalg.yield"(%145) : (f64) -> ()
    }) : (memref<1x2x8xf64>, memref<1x2x1xf64>) -> ()
    "linalg.generic"(%18, %16) <{indexing_maps = [#map, #map], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg183: f64, %arg184: f64):
      %144 = "arith.divf"(%arg183, %2) <{fastmath = #arith.fastmath<none>}> : (f64, f64) -> f64
      "linalg.yield"(%144) : (f64) -> ()
    }) : (memref<1x2x1xf64>, memref<1x2x1xf64>) -> ()
    "linalg.generic"(%15, %16, %15) <{indexing_maps = [#map, #map2, #map], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg180: f64, %arg181: f64, %arg182: f64):
      %143 = "arith.subf"(%arg180, %arg181) <{fastmath = #arith.fastmath<none>}> : (f64, f64) -> f64
      "linalg.yield"(%143) : (f64) -> ()
    }) : (memref<1x2x8xf64>, memref<1x2x1xf64>, memref<1x2x8xf64>) -> ()
    "linalg.generic"(%15, %15, %15) <{indexing_maps = [#map, #map, #map], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg177: f64, %arg178: f64, %arg179: f64):
      %142 = "arith.mulf"(%arg177, %arg178) <{fastmath = #arith.fastmath<none>}> : (f64, f64) -> f64
      "linalg.yield"(%142) : (f64) -> ()
    }) : (memref<1x2x8xf64>, memref<1x2x8xf64>, memref<1x2x8xf64>) -> ()
    %19 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<1x2x1xf64>
    "memref.copy"(%17, %19) : (memref<1x2x1xf64>, memref<1x2x1xf64>) -> ()
    "linalg.generic"(%15, %19) <{indexing_maps = [#map, #map2], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<reduction>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg175: f64, %arg176: f64):
      %141 = "arith.addf"(%arg175, %arg176) <{fastmath = #arith.fastmath<none>}> : (f64, f64) -> f64
      "linalg.yield"(%141) : (f64) -> ()
    }) : (memref<1x2x8xf64>, memref<1x2x1xf64>) -> ()
    "linalg.generic"(%19, %16) <{indexing_maps = [#map, #map], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg173: f64, %arg174: f64):
      %140 = "arith.divf"(%arg173, %2) <{fastmath = #arith.fastmath<none>}> : (f64, f64) -> f64
      "linalg.yield"(%140) : (f64) -> ()
    }) : (memref<1x2x1xf64>, memref<1x2x1xf64>) -> ()
    %20 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<1x2x1xf32>
    "linalg.generic"(%16, %20) <{indexing_maps = [#map, #map], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg171: f64, %arg172: f32):
      %139 = "arith.truncf"(%arg171) : (f64) -> f32
      "linalg.yield"(%139) : (f32) -> ()
    }) : (memref<1x2x1xf64>, memref<1x2x1xf32>) -> ()
    %21 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<1x2x1xf32>
    "linalg.generic"(%6, %21) <{indexing_maps = [#map1, #map], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg169: f32, %arg170: f32):
      "linalg.yield"(%arg169) : (f32) -> ()
    }) : (f32, memref<1x2x1xf32>) -> ()
    %22 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<1x2x1xf32>
    "memref.copy"(%21, %22) : (memref<1x2x1xf32>, memref<1x2x1xf32>) -> ()
    "linalg.generic"(%arg0, %22) <{indexing_maps = [#map, #map2], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<reduction>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg167: f32, %arg168: f32):
      %138 = "arith.addf"(%arg167, %arg168) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%138) : (f32) -> ()
    }) : (memref<1x2x8xf32>, memref<1x2x1xf32>) -> ()
    %23 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<1x2x1xf32>
    "linalg.generic"(%22, %23) <{indexing_maps = [#map, #map], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg165: f32, %arg166: f32):
      %137 = "arith.divf"(%arg165, %1) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%137) : (f32) -> ()
    }) : (memref<1x2x1xf32>, memref<1x2x1xf32>) -> ()
    "linalg.generic"(%20, %20) <{indexing_maps = [#map, #map], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg163: f32, %arg164: f32):
      %135 = "arith.truncf"(%3) : (f64) -> f32
      %136 = "arith.addf"(%arg163, %135) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%136) : (f32) -> ()
    }) : (memref<1x2x1xf32>, memref<1x2x1xf32>) -> ()
    "linalg.generic"(%20, %20) <{indexing_maps = [#map, #map], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg161: f32, %arg162: f32):
      %134 = "math.rsqrt"(%arg161) <{fastmath = #arith.fastmath<none>}> : (f32) -> f32
      "linalg.yield"(%134) : (f32) -> ()
    }) : (memref<1x2x1xf32>, memref<1x2x1xf32>) -> ()
    %24 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<1x2x8xf32>
    "linalg.generic"(%arg0, %23, %24) <{indexing_maps = [#map, #map2, #map], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg158: f32, %arg159: f32, %arg160: f32):
      %133 = "arith.subf"(%arg158, %arg159) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%133) : (f32) -> ()
    }) : (memref<1x2x8xf32>, memref<1x2x1xf32>, memref<1x2x8xf32>) -> ()
    "linalg.generic"(%24, %20, %24) <{indexing_maps = [#map, #map2, #map], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg155: f32, %arg156: f32, %arg157: f32):
      %132 = "arith.mulf"(%arg155, %arg156) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%132) : (f32) -> ()
    }) : (memref<1x2x8xf32>, memref<1x2x1xf32>, memref<1x2x8xf32>) -> ()
    "linalg.generic"(%24, %arg1, %24) <{indexing_maps = [#map, #map3, #map], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg152: f32, %arg153: f32, %arg154: f32):
      %131 = "arith.mulf"(%arg152, %arg153) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%131) : (f32) -> ()
    }) : (memref<1x2x8xf32>, memref<8xf32>, memref<1x2x8xf32>) -> ()
    "linalg.generic"(%24, %arg2, %24) <{indexing_maps = [#map, #map3, #map], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg149: f32, %arg150: f32, %arg151: f32):
      %130 = "arith.addf"(%arg149, %arg150) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%130) : (f32) -> ()
    }) : (memref<1x2x8xf32>, memref<8xf32>, memref<1x2x8xf32>) -> ()
    %25 = "memref.collapse_shape"(%24) <{reassociation = [[0, 1], [2]]}> : (memref<1x2x8xf32>) -> memref<2x8xf32>
    %26 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<8x24xf32>
    "linalg.generic"(%arg5, %26) <{indexing_maps = [#map4, #map5], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg147: f32, %arg148: f32):
      "linalg.yield"(%arg147) : (f32) -> ()
    }) : (memref<24x8xf32>, memref<8x24xf32>) -> ()
    %27 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<2x24xf32>
    "linalg.generic"(%6, %27) <{indexing_maps = [#map6, #map5], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg145: f32, %arg146: f32):
      "linalg.yield"(%arg145) : (f32) -> ()
    }) : (f32, memref<2x24xf32>) -> ()
    "linalg.generic"(%25, %26, %27) <{indexing_maps = [#map7, #map8, #map9], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<reduction>], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg142: f32, %arg143: f32, %arg144: f32):
      %128 = "arith.mulf"(%arg142, %arg143) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %129 = "arith.addf"(%arg144, %128) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%129) : (f32) -> ()
    }) : (memref<2x8xf32>, memref<8x24xf32>, memref<2x24xf32>) -> ()
    "linalg.generic"(%27, %arg6, %27) <{indexing_maps = [#map5, #map10, #map5], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg139: f32, %arg140: f32, %arg141: f32):
      %127 = "arith.addf"(%arg139, %arg140) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%127) : (f32) -> ()
    }) : (memref<2x24xf32>, memref<24xf32>, memref<2x24xf32>) -> ()
    %28 = "memref.expand_shape"(%27) <{reassociation = [[0, 1], [2]], static_output_shape = array<i64: 1, 2, 24>}> : (memref<2x24xf32>) -> memref<1x2x24xf32>
    %29 = "memref.subview"(%28) <{operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 0, 0, 0>, static_sizes = array<i64: 1, 2, 8>, static_strides = array<i64: 1, 1, 1>}> : (memref<1x2x24xf32>) -> memref<1x2x8xf32, strided<[48, 24, 1]>>
    %30 = "memref.subview"(%28) <{operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 0, 0, 8>, static_sizes = array<i64: 1, 2, 8>, static_strides = array<i64: 1, 1, 1>}> : (memref<1x2x24xf32>) -> memref<1x2x8xf32, strided<[48, 24, 1], offset: 8>>
    %31 = "memref.subview"(%28) <{operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 0, 0, 16>, static_sizes = array<i64: 1, 2, 8>, static_strides = array<i64: 1, 1, 1>}> : (memref<1x2x24xf32>) -> memref<1x2x8xf32, strided<[48, 24, 1], offset: 16>>
    %32 = "memref.expand_shape"(%29) <{reassociation = [[0], [1], [2, 3]], static_output_shape = array<i64: 1, 2, 2, 4>}> : (memref<1x2x8xf32, strided<[48, 24, 1]>>) -> memref<1x2x2x4xf32, strided<[48, 24, 4, 1]>>
    %33 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<1x2x2x4xf32>
    %34 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<1x2x2x4xf32>
    "linalg.generic"(%32, %34) <{indexing_maps = [#map11, #map12], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg137: f32, %arg138: f32):
      "linalg.yield"(%arg137) : (f32) -> ()
    }) : (memref<1x2x2x4xf32, strided<[48, 24, 4, 1]>>, memref<1x2x2x4xf32>) -> ()
    %35 = "memref.expand_shape"(%30) <{reassociation = [[0], [1], [2, 3]], static_output_shape = array<i64: 1, 2, 2, 4>}> : (memref<1x2x8xf32, strided<[48, 24, 1], offset: 8>>) -> memref<1x2x2x4xf32, strided<[48, 24, 4, 1], offset: 8>>
    %36 = "memref.expand_shape"(%31) <{reassociation = [[0], [1], [2, 3]], static_output_shape = array<i64: 1, 2, 2, 4>}> : (memref<1x2x8xf32, strided<[48, 24, 1], offset: 16>>) -> memref<1x2x2x4xf32, strided<[48, 24, 4, 1], offset: 16>>
    "linalg.generic"(%36, %33) <{indexing_maps = [#map11, #map12], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg135: f32, %arg136: f32):
      "linalg.yield"(%arg135) : (f32) -> ()
    }) : (memref<1x2x2x4xf32, strided<[48, 24, 4, 1], offset: 16>>, memref<1x2x2x4xf32>) -> ()
    %37 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<1x2x4x2xf32>
    "linalg.generic"(%35, %37) <{indexing_maps = [#map13, #map12], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg133: f32, %arg134: f32):
      "linalg.yield"(%arg133) : (f32) -> ()
    }) : (memref<1x2x2x4xf32, strided<[48, 24, 4, 1], offset: 8>>, memref<1x2x4x2xf32>) -> ()
    %38 = "memref.collapse_shape"(%34) <{reassociation = [[0, 1], [2], [3]]}> : (memref<1x2x2x4xf32>) -> memref<2x2x4xf32>
    %39 = "memref.collapse_shape"(%37) <{reassociation = [[0, 1], [2], [3]]}> : (memref<1x2x4x2xf32>) -> memref<2x4x2xf32>
    %40 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<2x2x2xf32>
    "linalg.generic"(%6, %40) <{indexing_maps = [#map1, #map], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg131: f32, %arg132: f32):
      "linalg.yield"(%arg131) : (f32) -> ()
    }) : (f32, memref<2x2x2xf32>) -> ()
    "linalg.generic"(%38, %39, %40) <{indexing_maps = [#map14, #map15, #map16], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<reduction>], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg128: f32, %arg129: f32, %arg130: f32):
      %125 = "arith.mulf"(%arg128, %arg129) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %126 = "arith.addf"(%arg130, %125) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%126) : (f32) -> ()
    }) : (memref<2x2x4xf32>, memref<2x4x2xf32>, memref<2x2x2xf32>) -> ()
    %41 = "memref.expand_shape"(%40) <{reassociation = [[0, 1], [2], [3]], static_output_shape = array<i64: 1, 2, 2, 2>}> : (memref<2x2x2xf32>) -> memref<1x2x2x2xf32>
    %42 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<1x2x2x2xf32>
    "linalg.generic"(%41, %42) <{indexing_maps = [#map12, #map12], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg126: f32, %arg127: f32):
      %124 = "arith.divf"(%arg126, %0) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%124) : (f32) -> ()
    }) : (memref<1x2x2x2xf32>, memref<1x2x2x2xf32>) -> ()
    %43 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<2xi64>
    "linalg.generic"(%43) <{indexing_maps = [#map17], iterator_types = [#linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 0, 1>}> ({
    ^bb0(%arg125: i64):
      %122 = "linalg.index"() <{dim = 0 : i64}> : () -> index
      %123 = "arith.index_cast"(%122) : (index) -> i64
      "linalg.yield"(%123) : (i64) -> ()
    }) : (memref<2xi64>) -> ()
    %44 = "memref.expand_shape"(%43) <{reassociation = [[0, 1]], static_output_shape = array<i64: 1, 2>}> : (memref<2xi64>) -> memref<1x2xi64>
    %45 = "memref.expand_shape"(%43) <{reassociation = [[0, 1]], static_output_shape = array<i64: 2, 1>}> : (memref<2xi64>) -> memref<2x1xi64>
    %46 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<2x2xi64>
    "linalg.generic"(%44, %45, %46) <{indexing_maps = [#map18, #map19, #map5], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg122: i64, %arg123: i64, %arg124: i64):
      %121 = "arith.subi"(%arg122, %arg123) <{overflowFlags = #arith.overflow<none>}> : (i64, i64) -> i64
      "linalg.yield"(%121) : (i64) -> ()
    }) : (memref<1x2xi64>, memref<2x1xi64>, memref<2x2xi64>) -> ()
    %47 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<2x2xi1>
    "linalg.generic"(%46, %47) <{indexing_maps = [#map5, #map5], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg120: i64, %arg121: i1):
      %120 = "arith.cmpi"(%arg120, %4) <{predicate = 3 : i64}> : (i64, i64) -> i1
      "linalg.yield"(%120) : (i1) -> ()
    }) : (memref<2x2xi64>, memref<2x2xi1>) -> ()
    "linalg.generic"(%47, %14, %47) <{indexing_maps = [#map5, #map5, #map5], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg117: i1, %arg118: i1, %arg119: i1):
      %119 = "arith.andi"(%arg117, %arg118) : (i1, i1) -> i1
      "linalg.yield"(%119) : (i1) -> ()
    }) : (memref<2x2xi1>, memref<2x2xi1>, memref<2x2xi1>) -> ()
    "linalg.generic"(%47, %42, %13, %42) <{indexing_maps = [#map20, #map12, #map21, #map12], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 3, 1>}> ({
    ^bb0(%arg113: i1, %arg114: f32, %arg115: f32, %arg116: f32):
      %118 = "arith.select"(%arg113, %arg114, %arg115) : (i1, f32, f32) -> f32
      "linalg.yield"(%118) : (f32) -> ()
    }) : (memref<2x2xi1>, memref<1x2x2x2xf32>, memref<f32>, memref<1x2x2x2xf32>) -> ()
    %48 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<1x2x2xi64>
    "linalg.generic"(%4, %48) <{indexing_maps = [#map1, #map], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg111: i64, %arg112: i64):
      "linalg.yield"(%arg111) : (i64) -> ()
    }) : (i64, memref<1x2x2xi64>) -> ()
    %49 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<1x2x2xf32>
    "linalg.generic"(%7, %49) <{indexing_maps = [#map1, #map], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg109: f32, %arg110: f32):
      "linalg.yield"(%arg109) : (f32) -> ()
    }) : (f32, memref<1x2x2xf32>) -> ()
    "linalg.generic"(%42, %49, %48) <{indexing_maps = [#map12, #map16, #map16], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<reduction>], operandSegmentSizes = array<i32: 1, 2>}> ({
    ^bb0(%arg106: f32, %arg107: f32, %arg108: i64):
      %113 = "linalg.index"() <{dim = 3 : i64}> : () -> index
      %114 = "arith.index_cast"(%113) : (index) -> i64
      %115 = "arith.maximumf"(%arg106, %arg107) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %116 = "arith.cmpf"(%arg106, %arg107) <{fastmath = #arith.fastmath<none>, predicate = 2 : i64}> : (f32, f32) -> i1
      %117 = "arith.select"(%116, %114, %arg108) : (i1, i64, i64) -> i64
      "linalg.yield"(%115, %117) : (f32, i64) -> ()
    }) : (memref<1x2x2x2xf32>, memref<1x2x2xf32>, memref<1x2x2xi64>) -> ()
    %50 = "memref.expand_shape"(%49) <{reassociation = [[0], [1], [2, 3]], static_output_shape = array<i64: 1, 2, 2, 1>}> : (memref<1x2x2xf32>) -> memref<1x2x2x1xf32>
    "linalg.generic"(%42, %50, %42) <{indexing_maps = [#map12, #map22, #map12], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg103: f32, %arg104: f32, %arg105: f32):
      %112 = "arith.subf"(%arg103, %arg104) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%112) : (f32) -> ()
    }) : (memref<1x2x2x2xf32>, memref<1x2x2x1xf32>, memref<1x2x2x2xf32>) -> ()
    "linalg.generic"(%42, %42) <{indexing_maps = [#map12, #map12], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg101: f32, %arg102: f32):
      %111 = "math.exp"(%arg101) <{fastmath = #arith.fastmath<none>}> : (f32) -> f32
      "linalg.yield"(%111) : (f32) -> ()
    }) : (memref<1x2x2x2xf32>, memref<1x2x2x2xf32>) -> ()
    %51 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<1x2x2x1xf32>
    "linalg.generic"(%6, %51) <{indexing_maps = [#map21, #map12], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg99: f32, %arg100: f32):
      "linalg.yield"(%arg99) : (f32) -> ()
    }) : (f32, memref<1x2x2x1xf32>) -> ()
    "linalg.generic"(%42, %51) <{indexing_maps = [#map12, #map22], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<reduction>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg97: f32, %arg98: f32):
      %110 = "arith.addf"(%arg97, %arg98) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%110) : (f32) -> ()
    }) : (memref<1x2x2x2xf32>, memref<1x2x2x1xf32>) -> ()
    "linalg.generic"(%42, %51, %42) <{indexing_maps = [#map12, #map22, #map12], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg94: f32, %arg95: f32, %arg96: f32):
      %109 = "arith.divf"(%arg94, %arg95) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%109) : (f32) -> ()
    }) : (memref<1x2x2x2xf32>, memref<1x2x2x1xf32>, memref<1x2x2x2xf32>) -> ()
    %52 = "memref.collapse_shape"(%42) <{reassociation = [[0, 1], [2], [3]]}> : (memref<1x2x2x2xf32>) -> memref<2x2x2xf32>
    %53 = "memref.collapse_shape"(%33) <{reassociation = [[0, 1], [2], [3]]}> : (memref<1x2x2x4xf32>) -> memref<2x2x4xf32>
    %54 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<2x2x4xf32>
    "linalg.generic"(%6, %54) <{indexing_maps = [#map1, #map], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg92: f32, %arg93: f32):
      "linalg.yield"(%arg92) : (f32) -> ()
    }) : (f32, memref<2x2x4xf32>) -> ()
    "linalg.generic"(%52, %53, %54) <{indexing_maps = [#map14, #map15, #map16], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<reduction>], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg89: f32, %arg90: f32, %arg91: f32):
      %107 = "arith.mulf"(%arg89, %arg90) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %108 = "arith.addf"(%arg91, %107) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%108) : (f32) -> ()
    }) : (memref<2x2x2xf32>, memref<2x2x4xf32>, memref<2x2x4xf32>) -> ()
    %55 = "memref.expand_shape"(%54) <{reassociation = [[0, 1], [2], [3]], static_output_shape = array<i64: 1, 2, 2, 4>}> : (memref<2x2x4xf32>) -> memref<1x2x2x4xf32>
    "linalg.generic"(%55, %33) <{indexing_maps = [#map11, #map12], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg87: f32, %arg88: f32):
      "linalg.yield"(%arg87) : (f32) -> ()
    }) : (memref<1x2x2x4xf32>, memref<1x2x2x4xf32>) -> ()
    %56 = "memref.collapse_shape"(%33) <{reassociation = [[0, 1], [2, 3]]}> : (memref<1x2x2x4xf32>) -> memref<2x8xf32>
    %57 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<8x8xf32>
    "linalg.generic"(%arg7, %57) <{indexing_maps = [#map4, #map5], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg85: f32, %arg86: f32):
      "linalg.yield"(%arg85) : (f32) -> ()
    }) : (memref<8x8xf32>, memref<8x8xf32>) -> ()
    %58 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<2x8xf32>
    %59 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<2x8xf32>
    "linalg.generic"(%6, %59) <{indexing_maps = [#map6, #map5], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg83: f32, %arg84: f32):
      "linalg.yield"(%arg83) : (f32) -> ()
    }) : (f32, memref<2x8xf32>) -> ()
    %60 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<2x8xf32>
    "memref.copy"(%59, %60) : (memref<2x8xf32>, memref<2x8xf32>) -> ()
    "linalg.generic"(%56, %57, %60) <{indexing_maps = [#map7, #map8, #map9], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<reduction>], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg80: f32, %arg81: f32, %arg82: f32):
      %105 = "arith.mulf"(%arg80, %arg81) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %106 = "arith.addf"(%arg82, %105) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%106) : (f32) -> ()
    }) : (memref<2x8xf32>, memref<8x8xf32>, memref<2x8xf32>) -> ()
    "linalg.generic"(%60, %arg8, %58) <{indexing_maps = [#map5, #map10, #map5], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg77: f32, %arg78: f32, %arg79: f32):
      %104 = "arith.addf"(%arg77, %arg78) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%104) : (f32) -> ()
    }) : (memref<2x8xf32>, memref<8xf32>, memref<2x8xf32>) -> ()
    %61 = "memref.expand_shape"(%58) <{reassociation = [[0, 1], [2]], static_output_shape = array<i64: 1, 2, 8>}> : (memref<2x8xf32>) -> memref<1x2x8xf32>
    %62 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<1x2x8xf32>
    "linalg.generic"(%arg0, %61, %62) <{indexing_maps = [#map, #map, #map], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg74: f32, %arg75: f32, %arg76: f32):
      %103 = "arith.addf"(%arg74, %arg75) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%103) : (f32) -> ()
    }) : (memref<1x2x8xf32>, memref<1x2x8xf32>, memref<1x2x8xf32>) -> ()
    "linalg.generic"(%62, %15) <{indexing_maps = [#map, #map], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg72: f32, %arg73: f64):
      %102 = "arith.extf"(%arg72) : (f32) -> f64
      "linalg.yield"(%102) : (f64) -> ()
    }) : (memref<1x2x8xf32>, memref<1x2x8xf64>) -> ()
    %63 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<1x2x1xf64>
    "memref.copy"(%17, %63) : (memref<1x2x1xf64>, memref<1x2x1xf64>) -> ()
    "linalg.generic"(%15, %63) <{indexing_maps = [#map, #map2], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<reduction>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg70: f64, %arg71: f64):
      %101 = "arith.addf"(%arg70, %arg71) <{fastmath = #arith.fastmath<none>}> : (f64, f64) -> f64
      "linalg.yield"(%101) : (f64) -> ()
    }) : (memref<1x2x8xf64>, memref<1x2x1xf64>) -> ()
    "linalg.generic"(%63, %16) <{indexing_maps = [#map, #map], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg68: f64, %arg69: f64):
      %100 = "arith.divf"(%arg68, %2) <{fastmath = #arith.fastmath<none>}> : (f64, f64) -> f64
      "linalg.yield"(%100) : (f64) -> ()
    }) : (memref<1x2x1xf64>, memref<1x2x1xf64>) -> ()
    "linalg.generic"(%15, %16, %15) <{indexing_maps = [#map, #map2, #map], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg65: f64, %arg66: f64, %arg67: f64):
      %99 = "arith.subf"(%arg65, %arg66) <{fastmath = #arith.fastmath<none>}> : (f64, f64) -> f64
      "linalg.yield"(%99) : (f64) -> ()
    }) : (memref<1x2x8xf64>, memref<1x2x1xf64>, memref<1x2x8xf64>) -> ()
    "linalg.generic"(%15, %15, %15) <{indexing_maps = [#map, #map, #map], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg62: f64, %arg63: f64, %arg64: f64):
      %98 = "arith.mulf"(%arg62, %arg63) <{fastmath = #arith.fastmath<none>}> : (f64, f64) -> f64
      "linalg.yield"(%98) : (f64) -> ()
    }) : (memref<1x2x8xf64>, memref<1x2x8xf64>, memref<1x2x8xf64>) -> ()
    "linalg.generic"(%15, %17) <{indexing_maps = [#map, #map2], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<reduction>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg60: f64, %arg61: f64):
      %97 = "arith.addf"(%arg60, %arg61) <{fastmath = #arith.fastmath<none>}> : (f64, f64) -> f64
      "linalg.yield"(%97) : (f64) -> ()
    }) : (memref<1x2x8xf64>, memref<1x2x1xf64>) -> ()
    "linalg.generic"(%17, %16) <{indexing_maps = [#map, #map], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg58: f64, %arg59: f64):
      %96 = "arith.divf"(%arg58, %2) <{fastmath = #arith.fastmath<none>}> : (f64, f64) -> f64
      "linalg.yield"(%96) : (f64) -> ()
    }) : (memref<1x2x1xf64>, memref<1x2x1xf64>) -> ()
    "linalg.generic"(%16, %20) <{indexing_maps = [#map, #map], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg56: f64, %arg57: f32):
      %95 = "arith.truncf"(%arg56) : (f64) -> f32
      "linalg.yield"(%95) : (f32) -> ()
    }) : (memref<1x2x1xf64>, memref<1x2x1xf32>) -> ()
    "linalg.generic"(%62, %21) <{indexing_maps = [#map, #map2], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<reduction>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg54: f32, %arg55: f32):
      %94 = "arith.addf"(%arg54, %arg55) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%94) : (f32) -> ()
    }) : (memref<1x2x8xf32>, memref<1x2x1xf32>) -> ()
    %64 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<1x2x1xf32>
    "linalg.generic"(%21, %64) <{indexing_maps = [#map, #map], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg52: f32, %arg53: f32):
      %93 = "arith.divf"(%arg52, %1) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%93) : (f32) -> ()
    }) : (memref<1x2x1xf32>, memref<1x2x1xf32>) -> ()
    "linalg.generic"(%20, %20) <{indexing_maps = [#map, #map], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg50: f32, %arg51: f32):
      %91 = "arith.truncf"(%3) : (f64) -> f32
      %92 = "arith.addf"(%arg50, %91) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%92) : (f32) -> ()
    }) : (memref<1x2x1xf32>, memref<1x2x1xf32>) -> ()
    "linalg.generic"(%20, %20) <{indexing_maps = [#map, #map], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg48: f32, %arg49: f32):
      %90 = "math.rsqrt"(%arg48) <{fastmath = #arith.fastmath<none>}> : (f32) -> f32
      "linalg.yield"(%90) : (f32) -> ()
    }) : (memref<1x2x1xf32>, memref<1x2x1xf32>) -> ()
    "linalg.generic"(%62, %64, %24) <{indexing_maps = [#map, #map2, #map], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg45: f32, %arg46: f32, %arg47: f32):
      %89 = "arith.subf"(%arg45, %arg46) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%89) : (f32) -> ()
    }) : (memref<1x2x8xf32>, memref<1x2x1xf32>, memref<1x2x8xf32>) -> ()
    "linalg.generic"(%24, %20, %24) <{indexing_maps = [#map, #map2, #map], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg42: f32, %arg43: f32, %arg44: f32):
      %88 = "arith.mulf"(%arg42, %arg43) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%88) : (f32) -> ()
    }) : (memref<1x2x8xf32>, memref<1x2x1xf32>, memref<1x2x8xf32>) -> ()
    "linalg.generic"(%24, %arg3, %24) <{indexing_maps = [#map, #map3, #map], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg39: f32, %arg40: f32, %arg41: f32):
      %87 = "arith.mulf"(%arg39, %arg40) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%87) : (f32) -> ()
    }) : (memref<1x2x8xf32>, memref<8xf32>, memref<1x2x8xf32>) -> ()
    "linalg.generic"(%24, %arg4, %24) <{indexing_maps = [#map, #map3, #map], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg36: f32, %arg37: f32, %arg38: f32):
      %86 = "arith.addf"(%arg36, %arg37) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%86) : (f32) -> ()
    }) : (memref<1x2x8xf32>, memref<8xf32>, memref<1x2x8xf32>) -> ()
    %65 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<8x32xf32>
    "linalg.generic"(%arg9, %65) <{indexing_maps = [#map4, #map5], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg34: f32, %arg35: f32):
      "linalg.yield"(%arg34) : (f32) -> ()
    }) : (memref<32x8xf32>, memref<8x32xf32>) -> ()
    %66 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<2x32xf32>
    "linalg.generic"(%6, %66) <{indexing_maps = [#map6, #map5], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg32: f32, %arg33: f32):
      "linalg.yield"(%arg32) : (f32) -> ()
    }) : (f32, memref<2x32xf32>) -> ()
    "linalg.generic"(%25, %65, %66) <{indexing_maps = [#map7, #map8, #map9], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<reduction>], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg29: f32, %arg30: f32, %arg31: f32):
      %84 = "arith.mulf"(%arg29, %arg30) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %85 = "arith.addf"(%arg31, %84) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%85) : (f32) -> ()
    }) : (memref<2x8xf32>, memref<8x32xf32>, memref<2x32xf32>) -> ()
    "linalg.generic"(%66, %arg10, %66) <{indexing_maps = [#map5, #map10, #map5], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg26: f32, %arg27: f32, %arg28: f32):
      %83 = "arith.addf"(%arg26, %arg27) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%83) : (f32) -> ()
    }) : (memref<2x32xf32>, memref<32xf32>, memref<2x32xf32>) -> ()
    %67 = "memref.expand_shape"(%66) <{reassociation = [[0, 1], [2]], static_output_shape = array<i64: 1, 2, 32>}> : (memref<2x32xf32>) -> memref<1x2x32xf32>
    %68 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<1x2x32xf32>
    "linalg.generic"(%67, %68) <{indexing_maps = [#map, #map], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg24: f32, %arg25: f32):
      %75 = "math.fpowi"(%arg24, %8) <{fastmath = #arith.fastmath<none>}> : (f32, i64) -> f32
      %76 = "arith.mulf"(%75, %9) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %77 = "arith.addf"(%arg24, %76) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %78 = "arith.mulf"(%77, %10) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %79 = "math.tanh"(%78) <{fastmath = #arith.fastmath<none>}> : (f32) -> f32
      %80 = "arith.addf"(%79, %11) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %81 = "arith.mulf"(%80, %12) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %82 = "arith.mulf"(%arg24, %81) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%82) : (f32) -> ()
    }) : (memref<1x2x32xf32>, memref<1x2x32xf32>) -> ()
    %69 = "memref.collapse_shape"(%68) <{reassociation = [[0, 1], [2]]}> : (memref<1x2x32xf32>) -> memref<2x32xf32>
    %70 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<32x8xf32>
    "linalg.generic"(%arg11, %70) <{indexing_maps = [#map4, #map5], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg22: f32, %arg23: f32):
      "linalg.yield"(%arg22) : (f32) -> ()
    }) : (memref<8x32xf32>, memref<32x8xf32>) -> ()
    "linalg.generic"(%69, %70, %59) <{indexing_maps = [#map7, #map8, #map9], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<reduction>], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg19: f32, %arg20: f32, %arg21: f32):
      %73 = "arith.mulf"(%arg19, %arg20) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %74 = "arith.addf"(%arg21, %73) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%74) : (f32) -> ()
    }) : (memref<2x32xf32>, memref<32x8xf32>, memref<2x8xf32>) -> ()
    "linalg.generic"(%59, %arg12, %58) <{indexing_maps = [#map5, #map10, #map5], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg16: f32, %arg17: f32, %arg18: f32):
      %72 = "arith.addf"(%arg16, %arg17) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%72) : (f32) -> ()
    }) : (memref<2x8xf32>, memref<8xf32>, memref<2x8xf32>) -> ()
    "linalg.generic"(%62, %61, %24) <{indexing_maps = [#map, #map, #map], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg13: f32, %arg14: f32, %arg15: f32):
      %71 = "arith.addf"(%arg13, %arg14) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%71) : (f32) -> ()
    }) : (memref<1x2x8xf32>, memref<1x2x8xf32>, memref<1x2x8xf32>) -> ()
    "memref.dealloc"(%15) : (memref<1x2x8xf64>) -> ()
    "memref.dealloc"(%16) : (memref<1x2x1xf64>) -> ()
    "memref.dealloc"(%17) : (memref<1x2x1xf64>) -> ()
    "memref.dealloc"(%18) : (memref<1x2x1xf64>) -> ()
    "memref.dealloc"(%19) : (memref<1x2x1xf64>) -> ()
    "memref.dealloc"(%20) : (memref<1x2x1xf32>) -> ()
    "memref.dealloc"(%21) : (memref<1x2x1xf32>) -> ()
    "memref.dealloc"(%22) : (memref<1x2x1xf32>) -> ()
    "memref.dealloc"(%23) : (memref<1x2x1xf32>) -> ()
    "memref.dealloc"(%26) : (memref<8x24xf32>) -> ()
    "memref.dealloc"(%27) : (memref<2x24xf32>) -> ()
    "memref.dealloc"(%33) : (memref<1x2x2x4xf32>) -> ()
    "memref.dealloc"(%34) : (memref<1x2x2x4xf32>) -> ()
    "memref.dealloc"(%37) : (memref<1x2x4x2xf32>) -> ()
    "memref.dealloc"(%40) : (memref<2x2x2xf32>) -> ()
    "memref.dealloc"(%42) : (memref<1x2x2x2xf32>) -> ()
    "memref.dealloc"(%43) : (memref<2xi64>) -> ()
    "memref.dealloc"(%46) : (memref<2x2xi64>) -> ()
    "memref.dealloc"(%47) : (memref<2x2xi1>) -> ()
    "memref.dealloc"(%48) : (memref<1x2x2xi64>) -> ()
    "memref.dealloc"(%49) : (memref<1x2x2xf32>) -> ()
    "memref.dealloc"(%51) : (memref<1x2x2x1xf32>) -> ()
    "memref.dealloc"(%54) : (memref<2x2x4xf32>) -> ()
    "memref.dealloc"(%57) : (memref<8x8xf32>) -> ()
    "memref.dealloc"(%58) : (memref<2x8xf32>) -> ()
    "memref.dealloc"(%59) : (memref<2x8xf32>) -> ()
    "memref.dealloc"(%60) : (memref<2x8xf32>) -> ()
    "memref.dealloc"(%62) : (memref<1x2x8xf32>) -> ()
    "memref.dealloc"(%63) : (memref<1x2x1xf64>) -> ()
    "memref.dealloc"(%64) : (memref<1x2x1xf32>) -> ()
    "memref.dealloc"(%65) : (memref<8x32xf32>) -> ()
    "memref.dealloc"(%66) : (memref<2x32xf32>) -> ()
    "memref.dealloc"(%68) : (memref<1x2x32xf32>) -> ()
    "memref.dealloc"(%70) : (memref<32x8xf32>) -> ()
    "func.return"(%24) : (memref<1x2x8xf32>) -> ()
  }) : () -> ()
}) : () -> ()

