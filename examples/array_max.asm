; Maximum of an array of n encrypted bytes (Trama et al., Algorithm 2).
; Run: encint asm run examples/array_max.asm --clear --input a=9,3,200,0,17
const n = 5
input a[n]
m = MAX a[0], a[1]
for i in 2..n {
  m = MAX m, a[i]
}
output m
