node {
  name: "a"
  op: "Const"
}
