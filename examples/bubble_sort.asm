; Bubble sort of n encrypted bytes, in place (Trama et al., Algorithm 1).
; Run: encint asm run examples/bubble_sort.asm --clear --input a=9,3,200,0,17
const n = 5
input a[n]
for i in 0..n-1 {
  for j in 0..n-1-i {
    t = MIN a[j], a[j+1]
    a[j+1] = MAX a[j], a[j+1]
    a[j] = t
  }
}
output a
