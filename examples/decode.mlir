lane.step @decode numerics(int8) {
  %x   = lane.input  "x"   : !lane.tensor<2048xf32>
  %pos = lane.input  "pos" : !lane.tensor<1xi32>
  %g   = lane.weight "g"   : !lane.tensor<2048xf32>
  %wq  = lane.weight "wq"  : !lane.tensor<4096x2048xi8>
  %wo  = lane.weight "wo"  : !lane.tensor<2048x4096xi8>
  %h   = lane.tensor "h" forms(plain, quant) : !lane.tensor<2048xf32>
  %q   = lane.tensor "q" forms(plain, quant) : !lane.tensor<4096xf32>
  %qk  = lane.view "qk" %q[2048] : !lane.tensor<2048xf32>
  %y   = lane.tensor "y" : !lane.tensor<2048xf32>
  lane.norm %x, %g -> %h(plain, quant)
  lane.gemv %h(quant), %wq -> %q split(4)
  lane.rope %pos -> %qk heads(16)
  lane.quantize %q -> %q(quant)
  lane.gemv %q(quant), %wo -> %y
  lane.output %y : !lane.tensor<2048xf32>
}
