// A small convolutional network as a bufferizing pipeline leaves it (one-shot bufferization, linalg lowered to
// affine loops, buffer hoisting, ownership-based deallocation): 21 buffers, every one allocated at the top of the
// function and freed after its last use, padding written through subviews, a flatten by collapse_shape and a view
// of the result by expand_shape. Weights are made by the function itself (values in quarters, centred on 0 by the %mid constants).
//   lanearena-opt examples/memref_convnet.mlir -p memref-arena-place
//   lanearena-run examples/memref_convnet.mlir

func.func @main() {
  %zero = arith.constant 0.0 : f32
  %quarter = arith.constant 0.25 : f32
  %half = arith.constant 0.5 : f32
  %mid3 = arith.constant 1.0 : f32
  %mid4 = arith.constant 1.5 : f32
  %mid5 = arith.constant 2.0 : f32
  %mid7 = arith.constant 3.0 : f32
  %x = memref.alloc() : memref<1x6x6xf32>
  %xpad = memref.alloc() : memref<1x8x8xf32>
  %w1 = memref.alloc() : memref<4x1x3x3xf32>
  %b1 = memref.alloc() : memref<4xf32>
  %c1 = memref.alloc() : memref<4x6x6xf32>
  %r1 = memref.alloc() : memref<4x6x6xf32>
  %p1 = memref.alloc() : memref<4x3x3xf32>
  %p1pad = memref.alloc() : memref<4x5x5xf32>
  %w2 = memref.alloc() : memref<4x4x3x3xf32>
  %b2 = memref.alloc() : memref<4xf32>
  %c2 = memref.alloc() : memref<4x3x3xf32>
  %r2 = memref.alloc() : memref<4x3x3xf32>
  %w3 = memref.alloc() : memref<10x36xf32>
  %b3 = memref.alloc() : memref<10xf32>
  %fc = memref.alloc() : memref<10xf32>
  %mx = memref.alloc() : memref<1xf32>
  %sh = memref.alloc() : memref<10xf32>
  %sq = memref.alloc() : memref<10xf32>
  %nrm = memref.alloc() : memref<1xf32>
  %out = memref.alloc() : memref<2x5xf32>
  %pooled = memref.alloc() : memref<4xf32>
  // the input image and its zero padding: the image copied into the padding's interior (a subview)
  affine.for %i0 = 0 to 1 {
    affine.for %i1 = 0 to 6 {
      affine.for %i2 = 0 to 6 {
        %h = affine.apply affine_map<(d0, d1, d2) -> ((d0 * 0 + d1 * 6 + d2 * 1) mod 7)>(%i0, %i1, %i2)
        %hi = arith.index_cast %h : index to i32
        %hf = arith.sitofp %hi : i32 to f32
        %hc = arith.subf %hf, %mid7 : f32
        %hv = arith.mulf %hc, %quarter : f32
        affine.store %hv, %x[%i0, %i1, %i2] : memref<1x6x6xf32>
      }
    }
  }
  affine.for %i0 = 0 to 1 {
    affine.for %i1 = 0 to 8 {
      affine.for %i2 = 0 to 8 {
        affine.store %zero, %xpad[%i0, %i1, %i2] : memref<1x8x8xf32>
      }
    }
  }
  %xin = memref.subview %xpad[0, 1, 1] [1, 6, 6] [1, 1, 1] : memref<1x8x8xf32> to memref<1x6x6xf32, strided<[64, 8, 1], offset: 9>>
  "memref.copy"(%x, %xin) : (memref<1x6x6xf32>, memref<1x6x6xf32, strided<[64, 8, 1], offset: 9>>) -> ()
  memref.dealloc %x : memref<1x6x6xf32>
  // conv 3x3, 1 -> 4 channels, with bias
  affine.for %i0 = 0 to 4 {
    affine.for %i1 = 0 to 1 {
      affine.for %i2 = 0 to 3 {
        affine.for %i3 = 0 to 3 {
          %h = affine.apply affine_map<(d0, d1, d2, d3) -> ((d0 * 7 + d1 * 3 + d2 * 5 + d3 * 1) mod 5)>(%i0, %i1, %i2, %i3)
          %hi = arith.index_cast %h : index to i32
          %hf = arith.sitofp %hi : i32 to f32
          %hc = arith.subf %hf, %mid5 : f32
          %hv = arith.mulf %hc, %half : f32
          affine.store %hv, %w1[%i0, %i1, %i2, %i3] : memref<4x1x3x3xf32>
        }
      }
    }
  }
  affine.for %i0 = 0 to 4 {
    %h = affine.apply affine_map<(d0) -> ((d0 * 3) mod 4)>(%i0)
    %hi = arith.index_cast %h : index to i32
    %hf = arith.sitofp %hi : i32 to f32
    %hc = arith.subf %hf, %mid4 : f32
    %hv = arith.mulf %hc, %quarter : f32
    affine.store %hv, %b1[%i0] : memref<4xf32>
  }
  affine.for %o = 0 to 4 {
    affine.for %i = 0 to 6 {
      affine.for %j = 0 to 6 {
        %bias = affine.load %b1[%o] : memref<4xf32>
        affine.store %bias, %c1[%o, %i, %j] : memref<4x6x6xf32>
        affine.for %c = 0 to 1 {
          affine.for %ki = 0 to 3 {
            affine.for %kj = 0 to 3 {
              %xv = affine.load %xpad[%c, %i + %ki, %j + %kj] : memref<1x8x8xf32>
              %wv = affine.load %w1[%o, %c, %ki, %kj] : memref<4x1x3x3xf32>
              %acc = affine.load %c1[%o, %i, %j] : memref<4x6x6xf32>
              %p = arith.mulf %xv, %wv : f32
              %s = arith.addf %acc, %p : f32
              affine.store %s, %c1[%o, %i, %j] : memref<4x6x6xf32>
            }
          }
        }
      }
    }
  }
  memref.dealloc %xpad : memref<1x8x8xf32>
  memref.dealloc %w1 : memref<4x1x3x3xf32>
  memref.dealloc %b1 : memref<4xf32>
  // relu, then 2x2 max pooling
  affine.for %i0 = 0 to 4 {
    affine.for %i1 = 0 to 6 {
      affine.for %i2 = 0 to 6 {
        %v = affine.load %c1[%i0, %i1, %i2] : memref<4x6x6xf32>
        %r = arith.maximumf %v, %zero : f32
        affine.store %r, %r1[%i0, %i1, %i2] : memref<4x6x6xf32>
      }
    }
  }
  memref.dealloc %c1 : memref<4x6x6xf32>
  affine.for %o = 0 to 4 {
    affine.for %i = 0 to 3 {
      affine.for %j = 0 to 3 {
        %m0 = affine.load %r1[%o, %i * 2, %j * 2] : memref<4x6x6xf32>
        %m1 = affine.load %r1[%o, %i * 2, %j * 2 + 1] : memref<4x6x6xf32>
        %m2 = affine.load %r1[%o, %i * 2 + 1, %j * 2] : memref<4x6x6xf32>
        %m3 = affine.load %r1[%o, %i * 2 + 1, %j * 2 + 1] : memref<4x6x6xf32>
        %a = arith.maximumf %m0, %m1 : f32
        %b = arith.maximumf %m2, %m3 : f32
        %m = arith.maximumf %a, %b : f32
        affine.store %m, %p1[%o, %i, %j] : memref<4x3x3xf32>
      }
    }
  }
  memref.dealloc %r1 : memref<4x6x6xf32>
  // each channel's largest value, read through a collapsed view of the pooled map
  %p1flat = memref.collapse_shape %p1 [[0], [1, 2]] : memref<4x3x3xf32> into memref<4x9xf32>
  affine.for %o = 0 to 4 {
    %first = affine.load %p1flat[%o, 0] : memref<4x9xf32>
    affine.store %first, %pooled[%o] : memref<4xf32>
    affine.for %k = 1 to 9 {
      %v = affine.load %p1flat[%o, %k] : memref<4x9xf32>
      %m = affine.load %pooled[%o] : memref<4xf32>
      %n = arith.maximumf %v, %m : f32
      affine.store %n, %pooled[%o] : memref<4xf32>
    }
  }
  printf.print_format "pooled maxima {}\n", %pooled : memref<4xf32>
  memref.dealloc %pooled : memref<4xf32>
  // pad, conv 3x3, 4 -> 4 channels, relu
  affine.for %i0 = 0 to 4 {
    affine.for %i1 = 0 to 5 {
      affine.for %i2 = 0 to 5 {
        affine.store %zero, %p1pad[%i0, %i1, %i2] : memref<4x5x5xf32>
      }
    }
  }
  %pin = memref.subview %p1pad[0, 1, 1] [4, 3, 3] [1, 1, 1] : memref<4x5x5xf32> to memref<4x3x3xf32, strided<[25, 5, 1], offset: 6>>
  "memref.copy"(%p1, %pin) : (memref<4x3x3xf32>, memref<4x3x3xf32, strided<[25, 5, 1], offset: 6>>) -> ()
  memref.dealloc %p1 : memref<4x3x3xf32>
  affine.for %i0 = 0 to 4 {
    affine.for %i1 = 0 to 4 {
      affine.for %i2 = 0 to 3 {
        affine.for %i3 = 0 to 3 {
          %h = affine.apply affine_map<(d0, d1, d2, d3) -> ((d0 * 5 + d1 * 7 + d2 * 3 + d3 * 1) mod 5)>(%i0, %i1, %i2, %i3)
          %hi = arith.index_cast %h : index to i32
          %hf = arith.sitofp %hi : i32 to f32
          %hc = arith.subf %hf, %mid5 : f32
          %hv = arith.mulf %hc, %quarter : f32
          affine.store %hv, %w2[%i0, %i1, %i2, %i3] : memref<4x4x3x3xf32>
        }
      }
    }
  }
  affine.for %i0 = 0 to 4 {
    %h = affine.apply affine_map<(d0) -> ((d0 * 1) mod 3)>(%i0)
    %hi = arith.index_cast %h : index to i32
    %hf = arith.sitofp %hi : i32 to f32
    %hc = arith.subf %hf, %mid3 : f32
    %hv = arith.mulf %hc, %half : f32
    affine.store %hv, %b2[%i0] : memref<4xf32>
  }
  affine.for %o = 0 to 4 {
    affine.for %i = 0 to 3 {
      affine.for %j = 0 to 3 {
        %bias = affine.load %b2[%o] : memref<4xf32>
        affine.store %bias, %c2[%o, %i, %j] : memref<4x3x3xf32>
        affine.for %c = 0 to 4 {
          affine.for %ki = 0 to 3 {
            affine.for %kj = 0 to 3 {
              %xv = affine.load %p1pad[%c, %i + %ki, %j + %kj] : memref<4x5x5xf32>
              %wv = affine.load %w2[%o, %c, %ki, %kj] : memref<4x4x3x3xf32>
              %acc = affine.load %c2[%o, %i, %j] : memref<4x3x3xf32>
              %p = arith.mulf %xv, %wv : f32
              %s = arith.addf %acc, %p : f32
              affine.store %s, %c2[%o, %i, %j] : memref<4x3x3xf32>
            }
          }
        }
      }
    }
  }
  memref.dealloc %p1pad : memref<4x5x5xf32>
  memref.dealloc %w2 : memref<4x4x3x3xf32>
  memref.dealloc %b2 : memref<4xf32>
  affine.for %i0 = 0 to 4 {
    affine.for %i1 = 0 to 3 {
      affine.for %i2 = 0 to 3 {
        %v = affine.load %c2[%i0, %i1, %i2] : memref<4x3x3xf32>
        %r = arith.maximumf %v, %zero : f32
        affine.store %r, %r2[%i0, %i1, %i2] : memref<4x3x3xf32>
      }
    }
  }
  memref.dealloc %c2 : memref<4x3x3xf32>
  // flatten (collapse_shape) and a fully connected layer of 10
  %flat = memref.collapse_shape %r2 [[0, 1, 2]] : memref<4x3x3xf32> into memref<36xf32>
  affine.for %i0 = 0 to 10 {
    affine.for %i1 = 0 to 36 {
      %h = affine.apply affine_map<(d0, d1) -> ((d0 * 3 + d1 * 1) mod 7)>(%i0, %i1)
      %hi = arith.index_cast %h : index to i32
      %hf = arith.sitofp %hi : i32 to f32
      %hc = arith.subf %hf, %mid7 : f32
      %hv = arith.mulf %hc, %quarter : f32
      affine.store %hv, %w3[%i0, %i1] : memref<10x36xf32>
    }
  }
  affine.for %i0 = 0 to 10 {
    %h = affine.apply affine_map<(d0) -> ((d0 * 1) mod 5)>(%i0)
    %hi = arith.index_cast %h : index to i32
    %hf = arith.sitofp %hi : i32 to f32
    %hc = arith.subf %hf, %mid5 : f32
    %hv = arith.mulf %hc, %quarter : f32
    affine.store %hv, %b3[%i0] : memref<10xf32>
  }
  affine.for %o = 0 to 10 {
    %bias = affine.load %b3[%o] : memref<10xf32>
    affine.store %bias, %fc[%o] : memref<10xf32>
    affine.for %k = 0 to 36 {
      %xv = affine.load %flat[%k] : memref<36xf32>
      %wv = affine.load %w3[%o, %k] : memref<10x36xf32>
      %acc = affine.load %fc[%o] : memref<10xf32>
      %p = arith.mulf %xv, %wv : f32
      %s = arith.addf %acc, %p : f32
      affine.store %s, %fc[%o] : memref<10xf32>
    }
  }
  memref.dealloc %r2 : memref<4x3x3xf32>
  memref.dealloc %w3 : memref<10x36xf32>
  memref.dealloc %b3 : memref<10xf32>
  // the scores shifted by their largest, squared and normalized
  %f0 = affine.load %fc[0] : memref<10xf32>
  affine.store %f0, %mx[0] : memref<1xf32>
  affine.for %k = 1 to 10 {
    %v = affine.load %fc[%k] : memref<10xf32>
    %m = affine.load %mx[0] : memref<1xf32>
    %n = arith.maximumf %v, %m : f32
    affine.store %n, %mx[0] : memref<1xf32>
  }
  affine.for %k = 0 to 10 {
    %v = affine.load %fc[%k] : memref<10xf32>
    %m = affine.load %mx[0] : memref<1xf32>
    %d = arith.subf %v, %m : f32
    affine.store %d, %sh[%k] : memref<10xf32>
  }
  memref.dealloc %fc : memref<10xf32>
  memref.dealloc %mx : memref<1xf32>
  affine.store %zero, %nrm[0] : memref<1xf32>
  affine.for %k = 0 to 10 {
    %v = affine.load %sh[%k] : memref<10xf32>
    %q = arith.mulf %v, %v : f32
    affine.store %q, %sq[%k] : memref<10xf32>
    %t = affine.load %nrm[0] : memref<1xf32>
    %u = arith.addf %t, %q : f32
    affine.store %u, %nrm[0] : memref<1xf32>
  }
  memref.dealloc %sh : memref<10xf32>
  %outflat = memref.collapse_shape %out [[0, 1]] : memref<2x5xf32> into memref<10xf32>
  affine.for %k = 0 to 10 {
    %q = affine.load %sq[%k] : memref<10xf32>
    %t = affine.load %nrm[0] : memref<1xf32>
    %r = arith.divf %q, %t : f32
    affine.store %r, %outflat[%k] : memref<10xf32>
  }
  memref.dealloc %sq : memref<10xf32>
  memref.dealloc %nrm : memref<1xf32>
  %scores = memref.expand_shape %outflat [[0, 1]] output_shape [10, 1] : memref<10xf32> into memref<10x1xf32>
  printf.print_format "scores {}\n", %scores : memref<10x1xf32>
  memref.dealloc %out : memref<2x5xf32>
  func.return
}
