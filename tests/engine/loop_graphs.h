#pragma once
// TensorFlow 1 control-flow graphs as tf.while_loop and tf.cond write them
// (TF 1.x names), shared by the engine and UI tests of loops and conds.
namespace flowlens::test {

// i = 0; while i < 10: i += 1 (frame "while/while_context").
inline const char* kWhileLoop = R"(
node { name: "Const" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
       attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 0 } } } }
node { name: "while/Enter" op: "Enter" input: "Const"
       attr { key: "T" value { type: DT_INT32 } } attr { key: "frame_name" value { s: "while/while_context" } }
       attr { key: "is_constant" value { b: false } } attr { key: "parallel_iterations" value { i: 4 } } }
node { name: "while/Merge" op: "Merge" input: "while/Enter" input: "while/NextIteration"
       attr { key: "N" value { i: 2 } } attr { key: "T" value { type: DT_INT32 } } }
node { name: "while/Less/y" op: "Const" input: "^while/Merge" attr { key: "dtype" value { type: DT_INT32 } }
       attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 10 } } } }
node { name: "while/Less" op: "Less" input: "while/Merge" input: "while/Less/y" attr { key: "T" value { type: DT_INT32 } } }
node { name: "while/LoopCond" op: "LoopCond" input: "while/Less" }
node { name: "while/Switch" op: "Switch" input: "while/Merge" input: "while/LoopCond"
       attr { key: "T" value { type: DT_INT32 } } }
node { name: "while/Identity" op: "Identity" input: "while/Switch:1" attr { key: "T" value { type: DT_INT32 } } }
node { name: "while/add/y" op: "Const" input: "^while/Identity" attr { key: "dtype" value { type: DT_INT32 } }
       attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 1 } } } }
node { name: "while/add" op: "Add" input: "while/Identity" input: "while/add/y" attr { key: "T" value { type: DT_INT32 } } }
node { name: "while/NextIteration" op: "NextIteration" input: "while/add" attr { key: "T" value { type: DT_INT32 } } }
node { name: "while/Exit" op: "Exit" input: "while/Switch" attr { key: "T" value { type: DT_INT32 } } }
node { name: "result" op: "Identity" input: "while/Exit" attr { key: "T" value { type: DT_INT32 } } }
)";

// r = tf.cond(x > 0, lambda: x + 1, lambda: x - 1) as TF 1.x's cond_v1 writes
// it: a Switch per value entering the branches (output_false = port 0,
// output_true = port 1), the branches' constants pinned by control edges to
// switch_t/switch_f, and a Merge of (false, true).
inline const char* kCond = R"(
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "Greater/y" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 0 } } } }
node { name: "Greater" op: "Greater" input: "x" input: "Greater/y" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "cond/Switch" op: "Switch" input: "Greater" input: "Greater" attr { key: "T" value { type: DT_BOOL } } }
node { name: "cond/switch_t" op: "Identity" input: "cond/Switch:1" attr { key: "T" value { type: DT_BOOL } } }
node { name: "cond/switch_f" op: "Identity" input: "cond/Switch" attr { key: "T" value { type: DT_BOOL } } }
node { name: "cond/pred_id" op: "Identity" input: "Greater" attr { key: "T" value { type: DT_BOOL } } }
node { name: "cond/add/y" op: "Const" input: "^cond/switch_t" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 1 } } } }
node { name: "cond/add/Switch" op: "Switch" input: "x" input: "cond/pred_id" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "cond/add" op: "Add" input: "cond/add/Switch:1" input: "cond/add/y" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "cond/sub/y" op: "Const" input: "^cond/switch_f" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 1 } } } }
node { name: "cond/sub/Switch" op: "Switch" input: "x" input: "cond/pred_id" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "cond/sub" op: "Sub" input: "cond/sub/Switch" input: "cond/sub/y" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "cond/Merge" op: "Merge" input: "cond/sub" input: "cond/add" attr { key: "N" value { i: 2 } } attr { key: "T" value { type: DT_FLOAT } } }
node { name: "r" op: "Identity" input: "cond/Merge" attr { key: "T" value { type: DT_FLOAT } } }
)";

}  // namespace flowlens::test
