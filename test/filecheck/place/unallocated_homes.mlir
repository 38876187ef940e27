// RUN: xdsl-opt %s -p 'lane-arena-place{algorithm=greedy}' | filecheck %s
// RUN: xdsl-opt %s -p 'lane-arena-place{algorithm=greedy}' | xdsl-opt -p lane-arena-verify | filecheck %s

// A quantized touch through a view in place lands in the quantized array of the tensor it views, allocated or not.
// Where that tensor is not allocated in the quantized form, the array keeps a buffer of its own as `unallocated`,
// whatever else the tensor is (an output, or a view half a block in whose quantized form is its own): the placed
// step must parse and verify again.

// CHECK-LABEL: lane.step @output
// CHECK:      %y = lane.tensor "y" own(plain = output, quant = unallocated) : !lane.tensor<64xf32>
lane.step @output numerics(int8) {
  %x = lane.input "x" : !lane.tensor<64xf32>
  %y = lane.tensor "y" : !lane.tensor<64xf32>
  %vy = lane.view "vy" %y[32] forms(plain, quant) : !lane.tensor<32xf32>
  %z = lane.tensor "z" : !lane.tensor<32xf32>
  lane.launch "proj"(%x) -> (%y whole)
  lane.launch "fill"(%x) -> (%vy(quant) whole)
  lane.launch "read"(%vy(quant)) -> (%z whole)
  lane.output %y, %z : !lane.tensor<64xf32>, !lane.tensor<32xf32>
}

// CHECK-LABEL: lane.step @view
// CHECK:      %half = lane.view "half" %t[16] own(quant = unallocated) : !lane.tensor<64xf32>
lane.step @view numerics(int8) {
  %x = lane.input "x" : !lane.tensor<96xf32>
  %t = lane.tensor "t" : !lane.tensor<96xf32>
  %half = lane.view "half" %t[16] : !lane.tensor<64xf32>
  %in = lane.view "in" %half[32] forms(plain, quant) : !lane.tensor<32xf32>
  %z = lane.tensor "z" : !lane.tensor<32xf32>
  lane.launch "proj"(%x) -> (%t whole)
  lane.launch "fill"(%x) -> (%in(quant) whole)
  lane.launch "read"(%in(quant)) -> (%z whole)
  lane.output %z : !lane.tensor<32xf32>
}
