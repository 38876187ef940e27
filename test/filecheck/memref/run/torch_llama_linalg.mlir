// RUN: lanearena-run %s --seed 0 --verbose > %t.before
// RUN: lanearena-opt %s -p memref-arena-place | tee %t.placed | lanearena-run - --seed 0 --verbose > %t.after
// RUN: diff %t.before %t.after
// RUN: filecheck %s --input-file=%t.placed

// llama (d 8, heads 2, seq 2, ffn 8, vocab 16, layers 1), random weights, exported by torch 2.13.0+cpu
// (torch.export), lowered to linalg on tensors by torch-mlir 20261001, bufferized by iree-opt (iree-base-compiler
// 3.13.0): --linalg-generalize-named-ops '--one-shot-bufferize=bufferize-function-boundaries
// function-boundary-type-conversion=identity-layout-map' --canonicalize --cse --ownership-based-buffer-deallocation
// --canonicalize --buffer-deallocation-simplification --bufferization-lower-deallocations --canonicalize --cse
// --mlir-print-op-generic; with its linalg ops kept. Made by `python bench/mlirgen.py --shapes lit --models llama
// --lit DIR`.
// Arguments: input, embed.weight, layers.0.input_layernorm.weight, layers.0.post_attention_layernorm.weight,
// layers.0.q.weight, layers.0.k.weight, layers.0.v.weight, layers.0.o.weight, layers.0.gate.weight,
// layers.0.up.weight, layers.0.down.weight, norm.weight, lm_head.weight.
// 42 buffers placed (escapes through func.return: the result), the arena at the lower bound, 3840 bytes (11008
// without reuse); placed, it runs the same; torch's result on the arguments lanearena-run --seed 0 draws:
// TORCH: [-0.9991135, 0.2112275, -0.9570457, -0.5227038, -1.054966, 0.6435929, 1.06963, 0.4973051, 1.319056, 0.02913653, 1.381931, -0.07371174, 1.208912, 1.394363, 0.4992396, 0.2941002, -1.902659, 0.7303064, -0.2819718, -1.841636, -1.780333, 0.1839119, -0.1665942, -0.2342899, 1.979048, -0.4547295, 2.057183, 0.2491464, 1.398812, 1.756599, -0.5199968, 0.1959841]
// CHECK: lanearena.bytes = 3840 : i64, lanearena.lower_bound = 3840 : i64
// CHECK: lanearena.own = "escapes through func.return"

#map = affine_map<(d0) -> (d0)>
#map1 = affine_map<(d0, d1) -> (d0, 0)>
#map2 = affine_map<(d0, d1) -> (0, d1)>
#map3 = affine_map<(d0, d1) -> (d0, d1)>
#map4 = affine_map<(d0, d1, d2) -> (d0, d1)>
#map5 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map6 = affine_map<(d0, d1, d2) -> ()>
#map7 = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
#map8 = affine_map<(d0, d1, d2) -> (d2)>
#map9 = affine_map<(d0, d1) -> (d1, d0)>
#map10 = affine_map<(d0, d1) -> ()>
#map11 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map12 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map13 = affine_map<(d0, d1, d2, d3) -> (d0, d2, d1, d3)>
#map14 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map15 = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
#map16 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3, d2)>
#map17 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#map18 = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
#map19 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#map20 = affine_map<(d0, d1, d2, d3) -> ()>
#map21 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>
"builtin.module"() ({
  "memref.global"() <{alignment = 64 : i64, constant, initial_value = dense<true> : tensor<2x2xi1>, sym_name = "__constant_2x2xi1", sym_visibility = "private", type = memref<2x2xi1>}> : () -> ()
  "memref.global"() <{alignment = 64 : i64, constant, initial_value = dense<0xFF800000> : tensor<f32>, sym_name = "__constant_xf32", sym_visibility = "private", type = memref<f32>}> : () -> ()
  "func.func"() <{function_type = (memref<1x2xi64>, memref<16x8xf32>, memref<8xf32>, memref<8xf32>, memref<8x8xf32>, memref<8x8xf32>, memref<8x8xf32>, memref<8x8xf32>, memref<8x8xf32>, memref<8x8xf32>, memref<8x8xf32>, memref<8xf32>, memref<16x8xf32>) -> memref<1x2x16xf32>, sym_name = "main"}> ({
  ^bb0(%arg0: memref<1x2xi64>, %arg1: memref<16x8xf32>, %arg2: memref<8xf32>, %arg3: memref<8xf32>, %arg4: memref<8x8xf32>, %arg5: memref<8x8xf32>, %arg6: memref<8x8xf32>, %arg7: memref<8x8xf32>, %arg8: memref<8x8xf32>, %arg9: memref<8x8xf32>, %arg10: memref<8x8xf32>, %arg11: memref<8xf32>, %arg12: memref<16x8xf32>):
    %0 = "arith.constant"() <{value = true}> : () -> i1
    %1 = "arith.constant"() <{value = 8.000000e+00 : f32}> : () -> f32
    %2 = "arith.constant"() <{value = 1.000000e+04 : f32}> : () -> f32
    %3 = "arith.constant"() <{value = 2.000000e+00 : f32}> : () -> f32
    %4 = "arith.constant"() <{value = 9.9999999999999995E-7 : f64}> : () -> f64
    %5 = "arith.constant"() <{value = 0 : i64}> : () -> i64
    %6 = "arith.constant"() <{value = 2 : i64}> : () -> i64
    %7 = "arith.constant"() <{value = 0.000000e+00 : f32}> : () -> f32
    %8 = "arith.constant"() <{value = 1.000000e+00 : f32}> : () -> f32
    %9 = "arith.constant"() <{value = 16 : index}> : () -> index
    %10 = "arith.constant"() <{value = 0xFF800000 : f32}> : () -> f32
    %11 = "memref.get_global"() <{name = @__constant_xf32}> : () -> memref<f32>
    %12 = "memref.get_global"() <{name = @__constant_2x2xi1}> : () -> memref<2x2xi1>
    %13 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<2xf32>
    %14 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<2xf32>
    "linalg.generic"(%14) <{indexing_maps = [#map], iterator_types = [#linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 0, 1>}> ({
    ^bb0(%arg214: f32):
      %177 = "linalg.index"() <{dim = 0 : i64}> : () -> index
      %178 = "arith.index_cast"(%177) : (index) -> i64
      %179 = "arith.sitofp"(%178) : (i64) -> f32
      %180 = "arith.addf"(%179, %7) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%180) : (f32) -> ()
    }) : (memref<2xf32>) -> ()
    "linalg.generic"(%14, %13) <{indexing_maps = [#map, #map], iterator_types = [#linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg212: f32, %arg213: f32):
      %176 = "arith.divf"(%arg212, %3) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%176) : (f32) -> ()
    }) : (memref<2xf32>, memref<2xf32>) -> ()
    "linalg.generic"(%13, %13) <{indexing_maps = [#map, #map], iterator_types = [#linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg210: f32, %arg211: f32):
      %175 = "math.powf"(%2, %arg210) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%175) : (f32) -> ()
    }) : (memref<2xf32>, memref<2xf32>) -> ()
    "linalg.generic"(%13, %13) <{indexing_maps = [#map, #map], iterator_types = [#linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg208: f32, %arg209: f32):
      %173 = "arith.cmpf"(%arg208, %7) <{fastmath = #arith.fastmath<none>, predicate = 6 : i64}> : (f32, f32) -> i1
      "cf.assert"(%173) <{msg = "unimplemented: tensor with zero element"}> : (i1) -> ()
      %174 = "arith.divf"(%8, %arg208) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%174) : (f32) -> ()
    }) : (memref<2xf32>, memref<2xf32>) -> ()
    %15 = "memref.expand_shape"(%14) <{reassociation = [[0, 1]], static_output_shape = array<i64: 2, 1>}> : (memref<2xf32>) -> memref<2x1xf32>
    %16 = "memref.expand_shape"(%13) <{reassociation = [[0, 1]], static_output_shape = array<i64: 1, 2>}> : (memref<2xf32>) -> memref<1x2xf32>
    %17 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<2x2xf32>
    "linalg.generic"(%15, %16, %17) <{indexing_maps = [#map1, #map2, #map3], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg205: f32, %arg206: f32, %arg207: f32):
      %172 = "arith.mulf"(%arg205, %arg206) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%172) : (f32) -> ()
    }) : (memref<2x1xf32>, memref<1x2xf32>, memref<2x2xf32>) -> ()
    %18 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<2x4xf32>
    %19 = "memref.subview"(%18) <{operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 0, 0>, static_sizes = array<i64: 2, 2>, static_strides = array<i64: 1, 1>}> : (memref<2x4xf32>) -> memref<2x2xf32, strided<[4, 1]>>
    "memref.copy"(%17, %19) : (memref<2x2xf32>, memref<2x2xf32, strided<[4, 1]>>) -> ()
    %20 = "memref.subview"(%18) <{operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 0, 2>, static_sizes = array<i64: 2, 2>, static_strides = array<i64: 1, 1>}> : (memref<2x4xf32>) -> memref<2x2xf32, strided<[4, 1], offset: 2>>
    "memref.copy"(%17, %20) : (memref<2x2xf32>, memref<2x2xf32, strided<[4, 1], offset: 2>>) -> ()
    %21 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<2x4xf32>
    %22 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<2x4xf32>
    "linalg.generic"(%18, %22) <{indexing_maps = [#map3, #map3], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg203: f32, %arg204: f32):
      %171 = "math.cos"(%arg203) <{fastmath = #arith.fastmath<none>}> : (f32) -> f32
      "linalg.yield"(%171) : (f32) -> ()
    }) : (memref<2x4xf32>, memref<2x4xf32>) -> ()
    "linalg.generic"(%18, %21) <{indexing_maps = [#map3, #map3], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg201: f32, %arg202: f32):
      %170 = "math.sin"(%arg201) <{fastmath = #arith.fastmath<none>}> : (f32) -> f32
      "linalg.yield"(%170) : (f32) -> ()
    }) : (memref<2x4xf32>, memref<2x4xf32>) -> ()
    %23 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<2xi64>
    "linalg.generic"(%23) <{indexing_maps = [#map], iterator_types = [#linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 0, 1>}> ({
    ^bb0(%arg200: i64):
      %168 = "linalg.index"() <{dim = 0 : i64}> : () -> index
      %169 = "arith.index_cast"(%168) : (index) -> i64
      "linalg.yield"(%169) : (i64) -> ()
    }) : (memref<2xi64>) -> ()
    %24 = "memref.expand_shape"(%23) <{reassociation = [[0, 1]], static_output_shape = array<i64: 1, 2>}> : (memref<2xi64>) -> memref<1x2xi64>
    %25 = "memref.expand_shape"(%23) <{reassociation = [[0, 1]], static_output_shape = array<i64: 2, 1>}> : (memref<2xi64>) -> memref<2x1xi64>
    %26 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<2x2xi64>
    "linalg.generic"(%24, %25, %26) <{indexing_maps = [#map2, #map1, #map3], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg197: i64, %arg198: i64, %arg199: i64):
      %167 = "arith.subi"(%arg197, %arg198) <{overflowFlags = #arith.overflow<none>}> : (i64, i64) -> i64
      "linalg.yield"(%167) : (i64) -> ()
    }) : (memref<1x2xi64>, memref<2x1xi64>, memref<2x2xi64>) -> ()
    %27 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<2x2xi1>
    "linalg.generic"(%26, %27) <{indexing_maps = [#map3, #map3], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg195: i64, %arg196: i1):
      %166 = "arith.cmpi"(%arg195, %5) <{predicate = 3 : i64}> : (i64, i64) -> i1
      "linalg.yield"(%166) : (i1) -> ()
    }) : (memref<2x2xi64>, memref<2x2xi1>) -> ()
    "linalg.generic"(%27, %12, %27) <{indexing_maps = [#map3, #map3, #map3], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg192: i1, %arg193: i1, %arg194: i1):
      %165 = "arith.andi"(%arg192, %arg193) : (i1, i1) -> i1
      "linalg.yield"(%165) : (i1) -> ()
    }) : (memref<2x2xi1>, memref<2x2xi1>, memref<2x2xi1>) -> ()
    %28 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<1x2x8xf32>
    %29 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<1x2x8xf32>
    "linalg.generic"(%arg0, %29) <{indexing_maps = [#map4, #map5], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg190: i64, %arg191: f32):
      %160 = "arith.index_cast"(%arg190) : (i64) -> index
      %161 = "linalg.index"() <{dim = 2 : i64}> : () -> index
      %162 = "arith.cmpi"(%160, %9) <{predicate = 2 : i64}> : (index, index) -> i1
      "cf.assert"(%162) <{msg = "index must be smaller than dim size"}> : (i1) -> ()
      %163 = "arith.cmpi"(%arg190, %5) <{predicate = 5 : i64}> : (i64, i64) -> i1
      "cf.assert"(%163) <{msg = "index must be larger or equal to 0"}> : (i1) -> ()
      %164 = "memref.load"(%arg1, %160, %161) <{invariant = false, nontemporal = false}> : (memref<16x8xf32>, index, index) -> f32
      "linalg.yield"(%164) : (f32) -> ()
    }) : (memref<1x2xi64>, memref<1x2x8xf32>) -> ()
    "linalg.generic"(%29, %28) <{indexing_maps = [#map5, #map5], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg188: f32, %arg189: f32):
      %159 = "math.fpowi"(%arg188, %6) <{fastmath = #arith.fastmath<none>}> : (f32, i64) -> f32
      "linalg.yield"(%159) : (f32) -> ()
    }) : (memref<1x2x8xf32>, memref<1x2x8xf32>) -> ()
    %30 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<1x2x1xf32>
    %31 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<1x2x1xf32>
    "linalg.generic"(%7, %31) <{indexing_maps = [#map6, #map5], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg186: f32, %arg187: f32):
      "linalg.yield"(%arg186) : (f32) -> ()
    }) : (f32, memref<1x2x1xf32>) -> ()
    %32 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<1x2x1xf32>
    "memref.copy"(%31, %32) : (memref<1x2x1xf32>, memref<1x2x1xf32>) -> ()
    "linalg.generic"(%28, %32) <{indexing_maps = [#map5, #map7], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<reduction>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg184: f32, %arg185: f32):
      %158 = "arith.addf"(%arg184, %arg185) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%158) : (f32) -> ()
    }) : (memref<1x2x8xf32>, memref<1x2x1xf32>) -> ()
    "linalg.generic"(%32, %30) <{indexing_maps = [#map5, #map5], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg182: f32, %arg183: f32):
      %157 = "arith.divf"(%arg182, %1) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%157) : (f32) -> ()
    }) : (memref<1x2x1xf32>, memref<1x2x1xf32>) -> ()
    "linalg.generic"(%30, %30) <{indexing_maps = [#map5, #map5], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg180: f32, %arg181: f32):
      %155 = "arith.truncf"(%4) : (f64) -> f32
      %156 = "arith.addf"(%arg180, %155) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%156) : (f32) -> ()
    }) : (memref<1x2x1xf32>, memref<1x2x1xf32>) -> ()
    "linalg.generic"(%30, %30) <{indexing_maps = [#map5, #map5], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg178: f32, %arg179: f32):
      %154 = "math.rsqrt"(%arg178) <{fastmath = #arith.fastmath<none>}> : (f32) -> f32
      "linalg.yield"(%154) : (f32) -> ()
    }) : (memref<1x2x1xf32>, memref<1x2x1xf32>) -> ()
    "linalg.generic"(%29, %30, %28) <{indexing_maps = [#map5, #map7, #map5], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg175: f32, %arg176: f32, %arg177: f32):
      %153 = "arith.mulf"(%arg175, %arg176) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%153) : (f32) -> ()
    }) : (memref<1x2x8xf32>, memref<1x2x1xf32>, memref<1x2x8xf32>) -> ()
    "linalg.generic"(%arg2, %28, %28) <{indexing_maps = [#map8, #map5, #map5], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg172: f32, %arg173: f32, %arg174: f32):
      %152 = "arith.mulf"(%arg172, %arg173) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%152) : (f32) -> ()
    }) : (memref<8xf32>, memref<1x2x8xf32>, memref<1x2x8xf32>) -> ()
    %33 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<8x8xf32>
    "linalg.generic"(%arg4, %33) <{indexing_maps = [#map9, #map3], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg170: f32, %arg171: f32):
      "linalg.yield"(%arg170) : (f32) -> ()
    }) : (memref<8x8xf32>, memref<8x8xf32>) -> ()
    %34 = "memref.collapse_shape"(%28) <{reassociation = [[0, 1], [2]]}> : (memref<1x2x8xf32>) -> memref<2x8xf32>
    %35 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<2x8xf32>
    "linalg.generic"(%7, %35) <{indexing_maps = [#map10, #map3], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg168: f32, %arg169: f32):
      "linalg.yield"(%arg168) : (f32) -> ()
    }) : (f32, memref<2x8xf32>) -> ()
    %36 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<2x8xf32>
    "memref.copy"(%35, %36) : (memref<2x8xf32>, memref<2x8xf32>) -> ()
    "linalg.generic"(%34, %33, %36) <{indexing_maps = [#map11, #map12, #map4], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<reduction>], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg165: f32, %arg166: f32, %arg167: f32):
      %150 = "arith.mulf"(%arg165, %arg166) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %151 = "arith.addf"(%arg167, %150) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%151) : (f32) -> ()
    }) : (memref<2x8xf32>, memref<8x8xf32>, memref<2x8xf32>) -> ()
    %37 = "memref.expand_shape"(%36) <{reassociation = [[0, 1], [2, 3]], static_output_shape = array<i64: 1, 2, 2, 4>}> : (memref<2x8xf32>) -> memref<1x2x2x4xf32>
    %38 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<1x2x2x4xf32>
    "linalg.generic"(%37, %38) <{indexing_maps = [#map13, #map14], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg163: f32, %arg164: f32):
      "linalg.yield"(%arg163) : (f32) -> ()
    }) : (memref<1x2x2x4xf32>, memref<1x2x2x4xf32>) -> ()
    "linalg.generic"(%arg5, %33) <{indexing_maps = [#map9, #map3], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg161: f32, %arg162: f32):
      "linalg.yield"(%arg161) : (f32) -> ()
    }) : (memref<8x8xf32>, memref<8x8xf32>) -> ()
    %39 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<2x8xf32>
    "memref.copy"(%35, %39) : (memref<2x8xf32>, memref<2x8xf32>) -> ()
    "linalg.generic"(%34, %33, %39) <{indexing_maps = [#map11, #map12, #map4], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<reduction>], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg158: f32, %arg159: f32, %arg160: f32):
      %148 = "arith.mulf"(%arg158, %arg159) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %149 = "arith.addf"(%arg160, %148) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%149) : (f32) -> ()
    }) : (memref<2x8xf32>, memref<8x8xf32>, memref<2x8xf32>) -> ()
    %40 = "memref.expand_shape"(%39) <{reassociation = [[0, 1], [2, 3]], static_output_shape = array<i64: 1, 2, 2, 4>}> : (memref<2x8xf32>) -> memref<1x2x2x4xf32>
    %41 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<1x2x2x4xf32>
    "linalg.generic"(%40, %41) <{indexing_maps = [#map13, #map14], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg156: f32, %arg157: f32):
      "linalg.yield"(%arg156) : (f32) -> ()
    }) : (memref<1x2x2x4xf32>, memref<1x2x2x4xf32>) -> ()
    "linalg.generic"(%arg6, %33) <{indexing_maps = [#map9, #map3], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg154: f32, %arg155: f32):
      "linalg.yield"(%arg154) : (f32) -> ()
    }) : (memref<8x8xf32>, memref<8x8xf32>) -> ()
    %42 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<2x8xf32>
    "memref.copy"(%35, %42) : (memref<2x8xf32>, memref<2x8xf32>) -> ()
    "linalg.generic"(%34, %33, %42) <{indexing_maps = [#map11, #map12, #map4], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<reduction>], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg151: f32, %arg152: f32, %arg153: f32):
      %146 = "arith.mulf"(%arg151, %arg152) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %147 = "arith.addf"(%arg153, %146) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%147) : (f32) -> ()
    }) : (memref<2x8xf32>, memref<8x8xf32>, memref<2x8xf32>) -> ()
    %43 = "memref.expand_shape"(%42) <{reassociation = [[0, 1], [2, 3]], static_output_shape = array<i64: 1, 2, 2, 4>}> : (memref<2x8xf32>) -> memref<1x2x2x4xf32>
    %44 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<1x2x2x4xf32>
    "linalg.generic"(%43, %44) <{indexing_maps = [#map13, #map14], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg149: f32, %arg150: f32):
      "linalg.yield"(%arg149) : (f32) -> ()
    }) : (memref<1x2x2x4xf32>, memref<1x2x2x4xf32>) -> ()
    %45 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<1x2x2x4xf32>
    "linalg.generic"(%38, %22, %45) <{indexing_maps = [#map14, #map15, #map14], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg146: f32, %arg147: f32, %arg148: f32):
      %145 = "arith.mulf"(%arg146, %arg147) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%145) : (f32) -> ()
    }) : (memref<1x2x2x4xf32>, memref<2x4xf32>, memref<1x2x2x4xf32>) -> ()
    %46 = "memref.subview"(%38) <{operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 0, 0, 0, 0>, static_sizes = array<i64: 1, 2, 2, 2>, static_strides = array<i64: 1, 1, 1, 1>}> : (memref<1x2x2x4xf32>) -> memref<1x2x2x2xf32, strided<[16, 8, 4, 1]>>
    %47 = "memref.subview"(%38) <{operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 0, 0, 0, 2>, static_sizes = array<i64: 1, 2, 2, 2>, static_strides = array<i64: 1, 1, 1, 1>}> : (memref<1x2x2x4xf32>) -> memref<1x2x2x2xf32, strided<[16, 8, 4, 1], offset: 2>>
    %48 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<1x2x2x2xf32>
    "linalg.generic"(%47, %48) <{indexing_maps = [#map14, #map14], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg144: f32, %arg145: f32):
      %144 = "arith.negf"(%arg144) <{fastmath = #arith.fastmath<none>}> : (f32) -> f32
      "linalg.yield"(%144) : (f32) -> ()
    }) : (memref<1x2x2x2xf32, strided<[16, 8, 4, 1], offset: 2>>, memref<1x2x2x2xf32>) -> ()
    %49 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<1x2x2x4xf32>
    %50 = "memref.subview"(%49) <{operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 0, 0, 0, 0>, static_sizes = array<i64: 1, 2, 2, 2>, static_strides = array<i64: 1, 1, 1, 1>}> : (memref<1x2x2x4xf32>) -> memref<1x2x2x2xf32, strided<[16, 8, 4, 1]>>
    "memref.copy"(%48, %50) : (memref<1x2x2x2xf32>, memref<1x2x2x2xf32, strided<[16, 8, 4, 1]>>) -> ()
    %51 = "memref.subview"(%49) <{operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 0, 0, 0, 2>, static_sizes = array<i64: 1, 2, 2, 2>, static_strides = array<i64: 1, 1, 1, 1>}> : (memref<1x2x2x4xf32>) -> memref<1x2x2x2xf32, strided<[16, 8, 4, 1], offset: 2>>
    "memref.copy"(%46, %51) : (memref<1x2x2x2xf32, strided<[16, 8, 4, 1]>>, memref<1x2x2x2xf32, strided<[16, 8, 4, 1], offset: 2>>) -> ()
    "linalg.generic"(%49, %21, %38) <{indexing_maps = [#map14, #map15, #map14], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg141: f32, %arg142: f32, %arg143: f32):
      %143 = "arith.mulf"(%arg141, %arg142) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%143) : (f32) -> ()
    }) : (memref<1x2x2x4xf32>, memref<2x4xf32>, memref<1x2x2x4xf32>) -> ()
    %52 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<1x2x2x4xf32>
    "linalg.generic"(%45, %38, %52) <{indexing_maps = [#map14, #map14, #map14], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg138: f32, %arg139: f32, %arg140: f32):
      %142 = "arith.addf"(%arg138, %arg139) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%142) : (f32) -> ()
    }) : (memref<1x2x2x4xf32>, memref<1x2x2x4xf32>, memref<1x2x2x4xf32>) -> ()
    %53 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<1x2x2x4xf32>
    "linalg.generic"(%41, %22, %53) <{indexing_maps = [#map14, #map15, #map14], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg135: f32, %arg136: f32, %arg137: f32):
      %141 = "arith.mulf"(%arg135, %arg136) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%141) : (f32) -> ()
    }) : (memref<1x2x2x4xf32>, memref<2x4xf32>, memref<1x2x2x4xf32>) -> ()
    %54 = "memref.subview"(%41) <{operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 0, 0, 0, 0>, static_sizes = array<i64: 1, 2, 2, 2>, static_strides = array<i64: 1, 1, 1, 1>}> : (memref<1x2x2x4xf32>) -> memref<1x2x2x2xf32, strided<[16, 8, 4, 1]>>
    %55 = "memref.subview"(%41) <{operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 0, 0, 0, 2>, static_sizes = array<i64: 1, 2, 2, 2>, static_strides = array<i64: 1, 1, 1, 1>}> : (memref<1x2x2x4xf32>) -> memref<1x2x2x2xf32, strided<[16, 8, 4, 1], offset: 2>>
    "linalg.generic"(%55, %48) <{indexing_maps = [#map14, #map14], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg133: f32, %arg134: f32):
      %140 = "arith.negf"(%arg133) <{fastmath = #arith.fastmath<none>}> : (f32) -> f32
      "linalg.yield"(%140) : (f32) -> ()
    }) : (memref<1x2x2x2xf32, strided<[16, 8, 4, 1], offset: 2>>, memref<1x2x2x2xf32>) -> ()
    %56 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<1x2x2x4xf32>
    %57 = "memref.subview"(%56) <{operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 0, 0, 0, 0>, static_sizes = array<i64: 1, 2, 2, 2>, static_strides = array<i64: 1, 1, 1, 1>}> : (memref<1x2x2x4xf32>) -> memref<1x2x2x2xf32, strided<[16, 8, 4, 1]>>
    "memref.copy"(%48, %57) : (memref<1x2x2x2xf32>, memref<1x2x2x2xf32, strided<[16, 8, 4, 1]>>) -> ()
    %58 = "memref.subview"(%56) <{operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 0, 0, 0, 2>, static_sizes = array<i64: 1, 2, 2, 2>, static_strides = array<i64: 1, 1, 1, 1>}> : (memref<1x2x2x4xf32>) -> memref<1x2x2x2xf32, strided<[16, 8, 4, 1], offset: 2>>
    "memref.copy"(%54, %58) : (memref<1x2x2x2xf32, strided<[16, 8, 4, 1]>>, memref<1x2x2x2xf32, strided<[16, 8, 4, 1], offset: 2>>) -> ()
    "linalg.generic"(%56, %21, %38) <{indexing_maps = [#map14, #map15, #map14], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg130: f32, %arg131: f32, %arg132: f32):
      %139 = "arith.mulf"(%arg130, %arg131) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%139) : (f32) -> ()
    }) : (memref<1x2x2x4xf32>, memref<2x4xf32>, memref<1x2x2x4xf32>) -> ()
    "linalg.generic"(%53, %38, %38) <{indexing_maps = [#map14, #map14, #map14], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg127: f32, %arg128: f32, %arg129: f32):
      %138 = "arith.addf"(%arg127, %arg128) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%138) : (f32) -> ()
    }) : (memref<1x2x2x4xf32>, memref<1x2x2x4xf32>, memref<1x2x2x4xf32>) -> ()
    %59 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<1x2x4x2xf32>
    "linalg.generic"(%38, %59) <{indexing_maps = [#map16, #map14], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg125: f32, %arg126: f32):
      "linalg.yield"(%arg125) : (f32) -> ()
    }) : (memref<1x2x2x4xf32>, memref<1x2x4x2xf32>) -> ()
    %60 = "memref.collapse_shape"(%52) <{reassociation = [[0, 1], [2], [3]]}> : (memref<1x2x2x4xf32>) -> memref<2x2x4xf32>
    %61 = "memref.collapse_shape"(%59) <{reassociation = [[0, 1], [2], [3]]}> : (memref<1x2x4x2xf32>) -> memref<2x4x2xf32>
    %62 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<2x2x2xf32>
    "linalg.generic"(%7, %62) <{indexing_maps = [#map6, #map5], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg123: f32, %arg124: f32):
      "linalg.yield"(%arg123) : (f32) -> ()
    }) : (f32, memref<2x2x2xf32>) -> ()
    "linalg.generic"(%60, %61, %62) <{indexing_maps = [#map17, #map18, #map19], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<reduction>], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg120: f32, %arg121: f32, %arg122: f32):
      %136 = "arith.mulf"(%arg120, %arg121) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %137 = "arith.addf"(%arg122, %136) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%137) : (f32) -> ()
    }) : (memref<2x2x4xf32>, memref<2x4x2xf32>, memref<2x2x2xf32>) -> ()
    %63 = "memref.expand_shape"(%62) <{reassociation = [[0, 1], [2], [3]], static_output_shape = array<i64: 1, 2, 2, 2>}> : (memref<2x2x2xf32>) -> memref<1x2x2x2xf32>
    "linalg.generic"(%63, %48) <{indexing_maps = [#map14, #map14], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg118: f32, %arg119: f32):
      %135 = "arith.divf"(%arg118, %3) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%135) : (f32) -> ()
    }) : (memref<1x2x2x2xf32>, memref<1x2x2x2xf32>) -> ()
    "linalg.generic"(%27, %27) <{indexing_maps = [#map3, #map3], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg116: i1, %arg117: i1):
      %134 = "arith.xori"(%arg116, %0) : (i1, i1) -> i1
      "linalg.yield"(%134) : (i1) -> ()
    }) : (memref<2x2xi1>, memref<2x2xi1>) -> ()
    "linalg.generic"(%27, %11, %48, %48) <{indexing_maps = [#map15, #map20, #map14, #map14], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 3, 1>}> ({
    ^bb0(%arg112: i1, %arg113: f32, %arg114: f32, %arg115: f32):
      %133 = "arith.select"(%arg112, %arg113, %arg114) : (i1, f32, f32) -> f32
      "linalg.yield"(%133) : (f32) -> ()
    }) : (memref<2x2xi1>, memref<f32>, memref<1x2x2x2xf32>, memref<1x2x2x2xf32>) -> ()
    %64 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<1x2x2xi64>
    "linalg.generic"(%5, %64) <{indexing_maps = [#map6, #map5], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg110: i64, %arg111: i64):
      "linalg.yield"(%arg110) : (i64) -> ()
    }) : (i64, memref<1x2x2xi64>) -> ()
    %65 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<1x2x2xf32>
    "linalg.generic"(%10, %65) <{indexing_maps = [#map6, #map5], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg108: f32, %arg109: f32):
      "linalg.yield"(%arg108) : (f32) -> ()
    }) : (f32, memref<1x2x2xf32>) -> ()
    "linalg.generic"(%48, %65, %64) <{indexing_maps = [#map14, #map19, #map19], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<reduction>], operandSegmentSizes = array<i32: 1, 2>}> ({
    ^bb0(%arg105: f32, %arg106: f32, %arg107: i64):
      %128 = "linalg.index"() <{dim = 3 : i64}> : () -> index
      %129 = "arith.index_cast"(%128) : (index) -> i64
      %130 = "arith.maximumf"(%arg105, %arg106) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %131 = "arith.cmpf"(%arg105, %arg106) <{fastmath = #arith.fastmath<none>, predicate = 2 : i64}> : (f32, f32) -> i1
      %132 = "arith.select"(%131, %129, %arg107) : (i1, i64, i64) -> i64
      "linalg.yield"(%130, %132) : (f32, i64) -> ()
    }) : (memref<1x2x2x2xf32>, memref<1x2x2xf32>, memref<1x2x2xi64>) -> ()
    %66 = "memref.expand_shape"(%65) <{reassociation = [[0], [1], [2, 3]], static_output_shape = array<i64: 1, 2, 2, 1>}> : (memref<1x2x2xf32>) -> memref<1x2x2x1xf32>
    "linalg.generic"(%48, %66, %48) <{indexing_maps = [#map14, #map21, #map14], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg102: f32, %arg103: f32, %arg104: f32):
      %127 = "arith.subf"(%arg102, %arg103) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%127) : (f32) -> ()
    }) : (memref<1x2x2x2xf32>, memref<1x2x2x1xf32>, memref<1x2x2x2xf32>) -> ()
    "linalg.generic"(%48, %48) <{indexing_maps = [#map14, #map14], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg100: f32, %arg101: f32):
      %126 = "math.exp"(%arg100) <{fastmath = #arith.fastmath<none>}> : (f32) -> f32
      "linalg.yield"(%126) : (f32) -> ()
    }) : (memref<1x2x2x2xf32>, memref<1x2x2x2xf32>) -> ()
    %67 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<1x2x2x1xf32>
    "linalg.generic"(%7, %67) <{indexing_maps = [#map20, #map14], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg98: f32, %arg99: f32):
      "linalg.yield"(%arg98) : (f32) -> ()
    }) : (f32, memref<1x2x2x1xf32>) -> ()
    "linalg.generic"(%48, %67) <{indexing_maps = [#map14, #map21], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<reduction>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg96: f32, %arg97: f32):
      %125 = "arith.addf"(%arg96, %arg97) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%125) : (f32) -> ()
    }) : (memref<1x2x2x2xf32>, memref<1x2x2x1xf32>) -> ()
    "linalg.generic"(%48, %67, %48) <{indexing_maps = [#map14, #map21, #map14], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg93: f32, %arg94: f32, %arg95: f32):
      %124 = "arith.divf"(%arg93, %arg94) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%124) : (f32) -> ()
    }) : (memref<1x2x2x2xf32>, memref<1x2x2x1xf32>, memref<1x2x2x2xf32>) -> ()
    %68 = "memref.collapse_shape"(%48) <{reassociation = [[0, 1], [2], [3]]}> : (memref<1x2x2x2xf32>) -> memref<2x2x2xf32>
    %69 = "memref.collapse_shape"(%44) <{reassociation = [[0, 1], [2], [3]]}> : (memref<1x2x2x4xf32>) -> memref<2x2x4xf32>
    %70 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<2x2x4xf32>
    "linalg.generic"(%7, %70) <{indexing_maps = [#map6, #map5], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg91: f32, %arg92: f32):
      "linalg.yield"(%arg91) : (f32) -> ()
    }) : (f32, memref<2x2x4xf32>) -> ()
    "linalg.generic"(%68, %69, %70) <{indexing_maps = [#map17, #map18, #map19], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<reduction>], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg88: f32, %arg89: f32, %arg90: f32):
      %122 = "arith.mulf"(%arg88, %arg89) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %123 = "arith.addf"(%arg90, %122) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%123) : (f32) -> ()
    }) : (memref<2x2x2xf32>, memref<2x2x4xf32>, memref<2x2x4xf32>) -> ()
    %71 = "memref.expand_shape"(%70) <{reassociation = [[0, 1], [2], [3]], static_output_shape = array<i64: 1, 2, 2, 4>}> : (memref<2x2x4xf32>) -> memref<1x2x2x4xf32>
    "linalg.generic"(%71, %38) <{indexing_maps = [#map13, #map14], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg86: f32, %arg87: f32):
      "linalg.yield"(%arg86) : (f32) -> ()
    }) : (memref<1x2x2x4xf32>, memref<1x2x2x4xf32>) -> ()
    "linalg.generic"(%arg7, %33) <{indexing_maps = [#map9, #map3], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg84: f32, %arg85: f32):
      "linalg.yield"(%arg84) : (f32) -> ()
    }) : (memref<8x8xf32>, memref<8x8xf32>) -> ()
    %72 = "memref.collapse_shape"(%38) <{reassociation = [[0, 1], [2, 3]]}> : (memref<1x2x2x4xf32>) -> memref<2x8xf32>
    %73 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<2x8xf32>
    "memref.copy"(%35, %73) : (memref<2x8xf32>, memref<2x8xf32>) -> ()
    "linalg.generic"(%72, %33, %73) <{indexing_maps = [#map11, #map12, #map4], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<reduction>], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg81: f32, %arg82: f32, %arg83: f32):
      %120 = "arith.mulf"(%arg81, %arg82) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %121 = "arith.addf"(%arg83, %120) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%121) : (f32) -> ()
    }) : (memref<2x8xf32>, memref<8x8xf32>, memref<2x8xf32>) -> ()
    %74 = "memref.expand_shape"(%73) <{reassociation = [[0, 1], [2]], static_output_shape = array<i64: 1, 2, 8>}> : (memref<2x8xf32>) -> memref<1x2x8xf32>
    %75 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<1x2x8xf32>
    "linalg.generic"(%29, %74, %75) <{indexing_maps = [#map5, #map5, #map5], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg78: f32, %arg79: f32, %arg80: f32):
      %119 = "arith.addf"(%arg78, %arg79) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%119) : (f32) -> ()
    }) : (memref<1x2x8xf32>, memref<1x2x8xf32>, memref<1x2x8xf32>) -> ()
    "linalg.generic"(%75, %28) <{indexing_maps = [#map5, #map5], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg76: f32, %arg77: f32):
      %118 = "math.fpowi"(%arg76, %6) <{fastmath = #arith.fastmath<none>}> : (f32, i64) -> f32
      "linalg.yield"(%118) : (f32) -> ()
    }) : (memref<1x2x8xf32>, memref<1x2x8xf32>) -> ()
    %76 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<1x2x1xf32>
    "memref.copy"(%31, %76) : (memref<1x2x1xf32>, memref<1x2x1xf32>) -> ()
    "linalg.generic"(%28, %76) <{indexing_maps = [#map5, #map7], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<reduction>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg74: f32, %arg75: f32):
      %117 = "arith.addf"(%arg74, %arg75) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%117) : (f32) -> ()
    }) : (memref<1x2x8xf32>, memref<1x2x1xf32>) -> ()
    "linalg.generic"(%76, %30) <{indexing_maps = [#map5, #map5], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg72: f32, %arg73: f32):
      %116 = "arith.divf"(%arg72, %1) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%116) : (f32) -> ()
    }) : (memref<1x2x1xf32>, memref<1x2x1xf32>) -> ()
    "linalg.generic"(%30, %30) <{indexing_maps = [#map5, #map5], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg70: f32, %arg71: f32):
      %114 = "arith.truncf"(%4) : (f64) -> f32
      %115 = "arith.addf"(%arg70, %114) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%115) : (f32) -> ()
    }) : (memref<1x2x1xf32>, memref<1x2x1xf32>) -> ()
    "linalg.generic"(%30, %30) <{indexing_maps = [#map5, #map5], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg68: f32, %arg69: f32):
      %113 = "math.rsqrt"(%arg68) <{fastmath = #arith.fastmath<none>}> : (f32) -> f32
      "linalg.yield"(%113) : (f32) -> ()
    }) : (memref<1x2x1xf32>, memref<1x2x1xf32>) -> ()
    "linalg.generic"(%75, %30, %28) <{indexing_maps = [#map5, #map7, #map5], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg65: f32, %arg66: f32, %arg67: f32):
      %112 = "arith.mulf"(%arg65, %arg66) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%112) : (f32) -> ()
    }) : (memref<1x2x8xf32>, memref<1x2x1xf32>, memref<1x2x8xf32>) -> ()
    %77 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<1x2x8xf32>
    "linalg.generic"(%arg3, %28, %77) <{indexing_maps = [#map8, #map5, #map5], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg62: f32, %arg63: f32, %arg64: f32):
      %111 = "arith.mulf"(%arg62, %arg63) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%111) : (f32) -> ()
    }) : (memref<8xf32>, memref<1x2x8xf32>, memref<1x2x8xf32>) -> ()
    "linalg.generic"(%arg8, %33) <{indexing_maps = [#map9, #map3], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg60: f32, %arg61: f32):
      "linalg.yield"(%arg60) : (f32) -> ()
    }) : (memref<8x8xf32>, memref<8x8xf32>) -> ()
    %78 = "memref.collapse_shape"(%77) <{reassociation = [[0, 1], [2]]}> : (memref<1x2x8xf32>) -> memref<2x8xf32>
    %79 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<2x8xf32>
    "memref.copy"(%35, %79) : (memref<2x8xf32>, memref<2x8xf32>) -> ()
    "linalg.generic"(%78, %33, %79) <{indexing_maps = [#map11, #map12, #map4], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<reduction>], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg57: f32, %arg58: f32, %arg59: f32):
      %109 = "arith.mulf"(%arg57, %arg58) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %110 = "arith.addf"(%arg59, %109) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%110) : (f32) -> ()
    }) : (memref<2x8xf32>, memref<8x8xf32>, memref<2x8xf32>) -> ()
    %80 = "memref.expand_shape"(%79) <{reassociation = [[0, 1], [2]], static_output_shape = array<i64: 1, 2, 8>}> : (memref<2x8xf32>) -> memref<1x2x8xf32>
    "linalg.generic"(%80, %28) <{indexing_maps = [#map5, #map5], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg55: f32, %arg56: f32):
      %105 = "arith.negf"(%arg55) <{fastmath = #arith.fastmath<none>}> : (f32) -> f32
      %106 = "math.exp"(%105) <{fastmath = #arith.fastmath<none>}> : (f32) -> f32
      %107 = "arith.addf"(%106, %8) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %108 = "arith.divf"(%8, %107) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%108) : (f32) -> ()
    }) : (memref<1x2x8xf32>, memref<1x2x8xf32>) -> ()
    "linalg.generic"(%80, %28, %28) <{indexing_maps = [#map5, #map5, #map5], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg52: f32, %arg53: f32, %arg54: f32):
      %104 = "arith.mulf"(%arg52, %arg53) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%104) : (f32) -> ()
    }) : (memref<1x2x8xf32>, memref<1x2x8xf32>, memref<1x2x8xf32>) -> ()
    "linalg.generic"(%arg9, %33) <{indexing_maps = [#map9, #map3], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg50: f32, %arg51: f32):
      "linalg.yield"(%arg50) : (f32) -> ()
    }) : (memref<8x8xf32>, memref<8x8xf32>) -> ()
    %81 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<2x8xf32>
    "memref.copy"(%35, %81) : (memref<2x8xf32>, memref<2x8xf32>) -> ()
    "linalg.generic"(%78, %33, %81) <{indexing_maps = [#map11, #map12, #map4], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<reduction>], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg47: f32, %arg48: f32, %arg49: f32):
      %102 = "arith.mulf"(%arg47, %arg48) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %103 = "arith.addf"(%arg49, %102) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%103) : (f32) -> ()
    }) : (memref<2x8xf32>, memref<8x8xf32>, memref<2x8xf32>) -> ()
    %82 = "memref.expand_shape"(%81) <{reassociation = [[0, 1], [2]], static_output_shape = array<i64: 1, 2, 8>}> : (memref<2x8xf32>) -> memref<1x2x8xf32>
    "linalg.generic"(%28, %82, %28) <{indexing_maps = [#map5, #map5, #map5], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg44: f32, %arg45: f32, %arg46: f32):
      %101 = "arith.mulf"(%arg44, %arg45) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%101) : (f32) -> ()
    }) : (memref<1x2x8xf32>, memref<1x2x8xf32>, memref<1x2x8xf32>) -> ()
    "linalg.generic"(%arg10, %33) <{indexing_maps = [#map9, #map3], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg42: f32, %arg43: f32):
      "linalg.yield"(%arg42) : (f32) -> ()
    }) : (memref<8x8xf32>, memref<8x8xf32>) -> ()
    "linalg.generic"(%34, %33, %35) <{indexing_maps = [#map11, #map12, #map4], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<reduction>], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg39: f32, %arg40: f32, %arg41: f32):
      %99 = "arith.mulf"(%arg39, %arg40) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %100 = "arith.addf"(%arg41, %99) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%100) : (f32) -> ()
    }) : (memref<2x8xf32>, memref<8x8xf32>, memref<2x8xf32>) -> ()
    %83 = "memref.expand_shape"(%35) <{reassociation = [[0, 1], [2]], static_output_shape = array<i64: 1, 2, 8>}> : (memref<2x8xf32>) -> memref<1x2x8xf32>
    %84 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<1x2x8xf32>
    "linalg.generic"(%75, %83, %84) <{indexing_maps = [#map5, #map5, #map5], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg36: f32, %arg37: f32, %arg38: f32):
      %98 = "arith.addf"(%arg36, %arg37) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%98) : (f32) -> ()
    }) : (memref<1x2x8xf32>, memref<1x2x8xf32>, memref<1x2x8xf32>) -> ()
    "linalg.generic"(%84, %28) <{indexing_maps = [#map5, #map5], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg34: f32, %arg35: f32):
      %97 = "math.fpowi"(%arg34, %6) <{fastmath = #arith.fastmath<none>}> : (f32, i64) -> f32
      "linalg.yield"(%97) : (f32) -> ()
    }) : (memref<1x2x8xf32>, memref<1x2x8xf32>) -> ()
    "linalg.generic"(%28, %31) <{indexing_maps = [#map5, #map7], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<reduction>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg32: f32, %arg33: f32):
      %96 = "arith.addf"(%arg32, %arg33) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%96) : (f32) -> ()
    }) : (memref<1x2x8xf32>, memref<1x2x1xf32>) -> ()
    "linalg.generic"(%31, %30) <{indexing_maps = [#map5, #map5], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg30: f32, %arg31: f32):
      %95 = "arith.divf"(%arg30, %1) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%95) : (f32) -> ()
    }) : (memref<1x2x1xf32>, memref<1x2x1xf32>) -> ()
    "linalg.generic"(%30, %30) <{indexing_maps = [#map5, #map5], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg28: f32, %arg29: f32):
      %93 = "arith.truncf"(%4) : (f64) -> f32
      %94 = "arith.addf"(%arg28, %93) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%94) : (f32) -> ()
    }) : (memref<1x2x1xf32>, memref<1x2x1xf32>) -> ()
    "linalg.generic"(%30, %30) <{indexing_maps = [#map5, #map5], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg26: f32, %arg27: f32):
      %92 = "math.rsqrt"(%arg26) <{fastmath = #arith.fastmath<none>}> : (f32) -> f32
      "linalg.yield"(%92) : (f32) -> ()
    }) : (memref<1x2x1xf32>, memref<1x2x1xf32>) -> ()
    "linalg.generic"(%84, %30, %28) <{indexing_maps = [#map5, #map7, #map5], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg23: f32, %arg24: f32, %arg25: f32):
      %91 = "arith.mulf"(%arg23, %arg24) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%91) : (f32) -> ()
    }) : (memref<1x2x8xf32>, memref<1x2x1xf32>, memref<1x2x8xf32>) -> ()
    "linalg.generic"(%arg11, %28, %28) <{indexing_maps = [#map8, #map5, #map5], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg20: f32, %arg21: f32, %arg22: f32):
      %90 = "arith.mulf"(%arg20, %arg21) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%90) : (f32) -> ()
    }) : (memref<8xf32>, memref<1x2x8xf32>, memref<1x2x8xf32>) -> ()
    %85 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<8x16xf32>
    "linalg.generic"(%arg12, %85) <{indexing_maps = [#map9, #map3], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg18: f32, %arg19: f32):
      "linalg.yield"(%arg18) : (f32) -> ()
    }) : (memref<16x8xf32>, memref<8x16xf32>) -> ()
    %86 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<2x16xf32>
    "linalg.generic"(%7, %86) <{indexing_maps = [#map10, #map3], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg16: f32, %arg17: f32):
      "linalg.yield"(%arg16) : (f32) -> ()
    }) : (f32, memref<2x16xf32>) -> ()
    "linalg.generic"(%34, %85, %86) <{indexing_maps = [#map11, #map12, #map4], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<reduction>], operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg13: f32, %arg14: f32, %arg15: f32):
      %88 = "arith.mulf"(%arg13, %arg14) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %89 = "arith.addf"(%arg15, %88) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%89) : (f32) -> ()
    }) : (memref<2x8xf32>, memref<8x16xf32>, memref<2x16xf32>) -> ()
    %87 = "memref.expand_shape"(%86) <{reassociation = [[0, 1], [2]], static_output_shape = array<i64: 1, 2, 16>}> : (memref<2x16xf32>) -> memref<1x2x16xf32>
    "memref.dealloc"(%13) : (memref<2xf32>) -> ()
    "memref.dealloc"(%14) : (memref<2xf32>) -> ()
    "memref.dealloc"(%17) : (memref<2x2xf32>) -> ()
    "memref.dealloc"(%18) : (memref<2x4xf32>) -> ()
    "memref.dealloc"(%21) : (memref<2x4xf32>) -> ()
    "memref.dealloc"(%22) : (memref<2x4xf32>) -> ()
    "memref.dealloc"(%23) : (memref<2xi64>) -> ()
    "memref.dealloc"(%26) : (memref<2x2xi64>) -> ()
    "memref.dealloc"(%27) : (memref<2x2xi1>) -> ()
    "memref.dealloc"(%28) : (memref<1x2x8xf32>) -> ()
    "memref.dealloc"(%29) : (memref<1x2x8xf32>) -> ()
    "memref.dealloc"(%30) : (memref<1x2x1xf32>) -> ()
    "memref.dealloc"(%31) : (memref<1x2x1xf32>) -> ()
    "memref.dealloc"(%32) : (memref<1x2x1xf32>) -> ()
    "memref.dealloc"(%33) : (memref<8x8xf32>) -> ()
    "memref.dealloc"(%35) : (memref<2x8xf32>) -> ()
    "memref.dealloc"(%36) : (memref<2x8xf32>) -> ()
    "memref.dealloc"(%38) : (memref<1x2x2x4xf32>) -> ()
    "memref.dealloc"(%39) : (memref<2x8xf32>) -> ()
    "memref.dealloc"(%41) : (memref<1x2x2x4xf32>) -> ()
    "memref.dealloc"(%42) : (memref<2x8xf32>) -> ()
    "memref.dealloc"(%44) : (memref<1x2x2x4xf32>) -> ()
    "memref.dealloc"(%45) : (memref<1x2x2x4xf32>) -> ()
    "memref.dealloc"(%48) : (memref<1x2x2x2xf32>) -> ()
    "memref.dealloc"(%49) : (memref<1x2x2x4xf32>) -> ()
    "memref.dealloc"(%52) : (memref<1x2x2x4xf32>) -> ()
    "memref.dealloc"(%53) : (memref<1x2x2x4xf32>) -> ()
    "memref.dealloc"(%56) : (memref<1x2x2x4xf32>) -> ()
    "memref.dealloc"(%59) : (memref<1x2x4x2xf32>) -> ()
    "memref.dealloc"(%62) : (memref<2x2x2xf32>) -> ()
    "memref.dealloc"(%64) : (memref<1x2x2xi64>) -> ()
    "memref.dealloc"(%65) : (memref<1x2x2xf32>) -> ()
    "memref.dealloc"(%67) : (memref<1x2x2x1xf32>) -> ()
    "memref.dealloc"(%70) : (memref<2x2x4xf32>) -> ()
    "memref.dealloc"(%73) : (memref<2x8xf32>) -> ()
    "memref.dealloc"(%75) : (memref<1x2x8xf32>) -> ()
    "memref.dealloc"(%76) : (memref<1x2x1xf32>) -> ()
    "memref.dealloc"(%77) : (memref<1x2x8xf32>) -> ()
    "memref.dealloc"(%79) : (memref<2x8xf32>) -> ()
    "memref.dealloc"(%81) : (memref<2x8xf32>) -> ()
    "memref.dealloc"(%84) : (memref<1x2x8xf32>) -> ()
    "memref.dealloc"(%85) : (memref<8x16xf32>) -> ()
    "func.return"(%87) : (memref<1x2x16xf32>) -> ()
  }) : () -> ()
}) : () -> ()

