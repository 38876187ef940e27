// RUN: lanearena-run %s --seed 0 --verbose > %t.before
// RUN: lanearena-opt %s -p memref-arena-place | tee %t.placed | lanearena-run - --seed 0 --verbose > %t.after
// RUN: diff %t.before %t.after
// RUN: filecheck %s --input-file=%t.placed

// mlp (d 8, heads 2, seq 2, ffn 8, vocab 16, layers 1), random weights, exported by torch 2.13.0+cpu (torch.export),
// lowered to linalg on tensors by torch-mlir 20261001, bufferized by iree-opt (iree-base-compiler 3.13.0):
// --linalg-generalize-named-ops '--one-shot-bufferize=bufferize-function-boundaries
// function-boundary-type-conversion=identity-layout-map' --canonicalize --cse --ownership-based-buffer-deallocation
// --canonicalize --buffer-deallocation-simplification --bufferization-lower-deallocations --canonicalize --cse
// --mlir-print-op-generic; with its linalg ops lowered to loops (--convert-linalg-to-loops --canonicalize --cse).
// Made by `python bench/mlirgen.py --shapes lit --models mlp --lit DIR`.
// Arguments: input, up.weight, up.bias, down.weight, down.bias.
// 3 buffers placed (escapes through func.return: the result), the arena at the lower bound, 768 bytes (768 without
// reuse); placed, it runs the same; torch's result on the arguments lanearena-run --seed 0 draws:
// TORCH: [2.547253, 2.247835, -0.5833141, -1.28358, 0.2132799, -0.7522177, -0.2672925, -0.4479115, -1.592315, 0.458157, -4.20065, 0.8526127, -1.792526, 0.8292278, 0.8751372, -1.368268]
// CHECK: lanearena.bytes = 768 : i64, lanearena.lower_bound = 768 : i64
// CHECK: lanearena.own = "escapes through func.return"

"builtin.module"() ({
  "func.func"() <{function_type = (memref<2x8xf32>, memref<8x8xf32>, memref<8xf32>, memref<8x8xf32>, memref<8xf32>) -> memref<2x8xf32>, sym_name = "main"}> ({
  ^bb0(%arg0: memref<2x8xf32>, %arg1: memref<8x8xf32>, %arg2: memref<8xf32>, %arg3: memref<8x8xf32>, %arg4: memref<8xf32>):
    %0 = "arith.constant"() <{value = 2 : index}> : () -> index
    %1 = "arith.constant"() <{value = 1 : index}> : () -> index
    %2 = "arith.constant"() <{value = 8 : index}> : () -> index
    %3 = "arith.constant"() <{value = 0 : index}> : () -> index
    %4 = "arith.constant"() <{value = 0.000000e+00 : f32}> : () -> f32
    %5 = "arith.constant"() <{value = 1.000000e+00 : f32}> : () -> f32
    %6 = "arith.constant"() <{value = 5.000000e-01 : f32}> : () -> f32
    %7 = "arith.constant"() <{value = 1.41421354 : f32}> : () -> f32
    %8 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<8x8xf32>
    "scf.for"(%3, %2, %1) ({
    ^bb0(%arg21: index):
      "scf.for"(%3, %2, %1) ({
      ^bb0(%arg22: index):
        %35 = "memref.load"(%arg1, %arg22, %arg21) <{invariant = false, nontemporal = false}> : (memref<8x8xf32>, index, index) -> f32
        "memref.store"(%35, %8, %arg21, %arg22) <{nontemporal = false}> : (f32, memref<8x8xf32>, index, index) -> ()
        "scf.yield"() : () -> ()
      }) : (index, index, index) -> ()
      "scf.yield"() : () -> ()
    }) : (index, index, index) -> ()
    %9 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<2x8xf32>
    %10 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<2x8xf32>
    "scf.for"(%3, %0, %1) ({
    ^bb0(%arg19: index):
      "scf.for"(%3, %2, %1) ({
      ^bb0(%arg20: index):
        "memref.store"(%4, %10, %arg19, %arg20) <{nontemporal = false}> : (f32, memref<2x8xf32>, index, index) -> ()
        "scf.yield"() : () -> ()
      }) : (index, index, index) -> ()
      "scf.yield"() : () -> ()
    }) : (index, index, index) -> ()
    %11 = "memref.alloc"() <{alignment = 64 : i64, operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<2x8xf32>
    "memref.copy"(%10, %11) : (memref<2x8xf32>, memref<2x8xf32>) -> ()
    "scf.for"(%3, %0, %1) ({
    ^bb0(%arg16: index):
      "scf.for"(%3, %2, %1) ({
      ^bb0(%arg17: index):
        "scf.for"(%3, %2, %1) ({
        ^bb0(%arg18: index):
          %30 = "memref.load"(%arg0, %arg16, %arg18) <{invariant = false, nontemporal = false}> : (memref<2x8xf32>, index, index) -> f32
          %31 = "memref.load"(%8, %arg18, %arg17) <{invariant = false, nontemporal = false}> : (memref<8x8xf32>, index, index) -> f32
          %32 = "memref.load"(%11, %arg16, %arg17) <{invariant = false, nontemporal = false}> : (memref<2x8xf32>, index, index) -> f32
          %33 = "arith.mulf"(%30, %31) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
          %34 = "arith.addf"(%32, %33) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
          "memref.store"(%34, %11, %arg16, %arg17) <{nontemporal = false}> : (f32, memref<2x8xf32>, index, index) -> ()
          "scf.yield"() : () -> ()
        }) : (index, index, index) -> ()
        "scf.yield"() : () -> ()
      }) : (index, index, index) -> ()
      "scf.yield"() : () -> ()
    }) : (index, index, index) -> ()
    "scf.for"(%3, %0, %1) ({
    ^bb0(%arg14: index):
      "scf.for"(%3, %2, %1) ({
      ^bb0(%arg15: index):
        %27 = "memref.load"(%11, %arg14, %arg15) <{invariant = false, nontemporal = false}> : (memref<2x8xf32>, index, index) -> f32
        %28 = "memref.load"(%arg2, %arg15) <{invariant = false, nontemporal = false}> : (memref<8xf32>, index) -> f32
        %29 = "arith.addf"(%27, %28) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
        "memref.store"(%29, %9, %arg14, %arg15) <{nontemporal = false}> : (f32, memref<2x8xf32>, index, index) -> ()
        "scf.yield"() : () -> ()
      }) : (index, index, index) -> ()
      "scf.yield"() : () -> ()
    }) : (index, index, index) -> ()
    "scf.for"(%3, %0, %1) ({
    ^bb0(%arg12: index):
      "scf.for"(%3, %2, %1) ({
      ^bb0(%arg13: index):
        %21 = "memref.load"(%9, %arg12, %arg13) <{invariant = false, nontemporal = false}> : (memref<2x8xf32>, index, index) -> f32
        %22 = "arith.divf"(%21, %7) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
        %23 = "math.erf"(%22) <{fastmath = #arith.fastmath<none>}> : (f32) -> f32
        %24 = "arith.addf"(%23, %5) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
        %25 = "arith.mulf"(%24, %6) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
        %26 = "arith.mulf"(%21, %25) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
        "memref.store"(%26, %9, %arg12, %arg13) <{nontemporal = false}> : (f32, memref<2x8xf32>, index, index) -> ()
        "scf.yield"() : () -> ()
      }) : (index, index, index) -> ()
      "scf.yield"() : () -> ()
    }) : (index, index, index) -> ()
    "scf.for"(%3, %2, %1) ({
    ^bb0(%arg10: index):
      "scf.for"(%3, %2, %1) ({
      ^bb0(%arg11: index):
        %20 = "memref.load"(%arg3, %arg11, %arg10) <{invariant = false, nontemporal = false}> : (memref<8x8xf32>, index, index) -> f32
        "memref.store"(%20, %8, %arg10, %arg11) <{nontemporal = false}> : (f32, memref<8x8xf32>, index, index) -> ()
        "scf.yield"() : () -> ()
      }) : (index, index, index) -> ()
      "scf.yield"() : () -> ()
    }) : (index, index, index) -> ()
    "scf.for"(%3, %0, %1) ({
    ^bb0(%arg7: index):
      "scf.for"(%3, %2, %1) ({
      ^bb0(%arg8: index):
        "scf.for"(%3, %2, %1) ({
        ^bb0(%arg9: index):
          %15 = "memref.load"(%9, %arg7, %arg9) <{invariant = false, nontemporal = false}> : (memref<2x8xf32>, index, index) -> f32
          %16 = "memref.load"(%8, %arg9, %arg8) <{invariant = false, nontemporal = false}> : (memref<8x8xf32>, index, index) -> f32
          %17 = "memref.load"(%10, %arg7, %arg8) <{invariant = false, nontemporal = false}> : (memref<2x8xf32>, index, index) -> f32
          %18 = "arith.mulf"(%15, %16) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
          %19 = "arith.addf"(%17, %18) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
          "memref.store"(%19, %10, %arg7, %arg8) <{nontemporal = false}> : (f32, memref<2x8xf32>, index, index) -> ()
          "scf.yield"() : () -> ()
        }) : (index, index, index) -> ()
        "scf.yield"() : () -> ()
      }) : (index, index, index) -> ()
      "scf.yield"() : () -> ()
    }) : (index, index, index) -> ()
    "scf.for"(%3, %0, %1) ({
    ^bb0(%arg5: index):
      "scf.for"(%3, %2, %1) ({
      ^bb0(%arg6: index):
        %12 = "memref.load"(%10, %arg5, %arg6) <{invariant = false, nontemporal = false}> : (memref<2x8xf32>, index, index) -> f32
        %13 = "memref.load"(%arg4, %arg6) <{invariant = false, nontemporal = false}> : (memref<8xf32>, index) -> f32
        %14 = "arith.addf"(%12, %13) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
        "memref.store"(%14, %9, %arg5, %arg6) <{nontemporal = false}> : (f32, memref<2x8xf32>, index, index) -> ()
        "scf.yield"() : () -> ()
      }) : (index, index, index) -> ()
      "scf.yield"() : () -> ()
    }) : (index, index, index) -> ()
    "memref.dealloc"(%8) : (memref<8x8xf32>) -> ()
    "memref.dealloc"(%10) : (memref<2x8xf32>) -> ()
    "memref.dealloc"(%11) : (memref<2x8xf32>) -> ()
    "func.return"(%9) : (memref<2x8xf32>) -> ()
  }) : () -> ()
}) : () -> ()

