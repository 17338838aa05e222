

badÿNoOp