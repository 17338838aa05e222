#!/usr/bin/env python3
"""Writes lstm_train.pbtxt and lstm_train.expected.json: a TF 1.x dynamic_rnn
LSTM training step, forward and gradient, as TensorFlow 1.15 exports it.

Standard library only; run it from anywhere:  python3 make_dynamic_rnn.py
We hold no real export of this kind (no TensorFlow here), so this script writes
the GraphDef that TF 1.15 (graph mode, control flow v1, ref variables) writes
for

    K0, B0 = ...   # kernels from the seeded LCG below; biases start at zero
    x = tf.placeholder(tf.float32, [4, 5, 3], name="inputs")
    y = tf.placeholder(tf.int32, [4], name="labels")
    cell = tf.nn.rnn_cell.LSTMCell(num_units=6, initializer=tf.constant_initializer(K0))
    outputs, state = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)   # time_major=False
    logits = tf.layers.dense(outputs[:, -1], 2, kernel_initializer=tf.constant_initializer(D0))
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)

outputs[:, -1] equals state.h, but taking it from `outputs` is what makes
tf.gradients reach the output TensorArray: with dense(state.h) the loss would
not depend on the TensorArray flow (it is not between the loss and the
variables), and TF 1.15 would build no TensorArrayGradV3 at all.

How the nodes arise, from TensorFlow 1.15's Python (tensorflow/python/ops/):
  * rnn.py dynamic_rnn / _dynamic_rnn_loop: _transpose_batch_time (Rank, range,
    concat, Transpose), LSTMCell.zero_state (LSTMCellZeroState/Const..Const_7,
    concat, zeros = Fill), time_steps = strided_slice of a constant Shape, the
    zero output, two TensorArrayV3 ("rnn/dynamic_rnn/output_0", ".../input_0",
    size time_steps, element_shape known, identical_element_shapes), the input
    unstacked with TensorArrayScatterV3 (TensorArrayUnstack), loop_bound =
    Minimum(time_steps, Maximum(1, time_steps)), while_loop with
    parallel_iterations=32 and maximum_iterations=time_steps (so the loop vars
    are [iteration_counter, time, output flow, c, h] and the condition is
    LogicalAnd(counter < max_iter, time < loop_bound)), then TensorArrayStack
    (range(0, size) + TensorArrayGatherV3; TensorArray.size() is the static
    size tensor, no TensorArraySizeV3) and the transpose back.
  * control_flow_ops.py WhileContext: Enter/Merge/Switch/Identity/NextIteration/
    Exit named in the "rnn/while/" scope; frame "rnn/while/while_context"; a
    value from outside the loop enters through an Enter with is_constant=true
    named "<consumer>/Enter" (written after its consumer, as TF creates it while
    adding the consumer to the context); a Const inside the body gets the
    control input ^rnn/while/Identity (the body pivot); a loop Switch
    (_SwitchRefOrTensor) is colocated with its Merge (_class), the plain
    switch() of the counters and accumulators is not.
  * rnn_cell_impl.py LSTMCell.build/call: ref variables rnn/lstm_cell/kernel
    [9, 24] and bias [24] (created outside the loop, init_scope), concat
    [x_t, h], MatMul, BiasAdd, split into i, j, f, o (array_ops.split converts
    num_or_size_splits first: the unused "lstm_cell/Const"), c = sigmoid(f +
    1.0) * c + sigmoid(i) * tanh(j), h = sigmoid(o) * tanh(c). `+` is AddV2 in
    1.15; math_ops.add (the gradient loops' counters) is Add.
  * gradients_util.py _GradientsHelper with gate_gradients=True (GATE_OP):
    grad_ys Fill, then control_flow_state.py _GradLoopState: the forward
    counter "gradients/f_count*" (Enter/Merge/Switch/Add/NextIteration/Exit in
    the forward frame), the backprop WhileContext "gradients/rnn/while/
    while_context" and its counter "gradients/b_count*" (GreaterEqual, LoopCond,
    Sub). Every op's gradient under "gradients/<op>_grad/", a tuple
    (group_deps + control_dependency identities) where an op gives more than
    one gradient, AddN ("gradients/AddN", colocated with the first summand) where
    a tensor gets more than one. The order is _GradientsHelper's queue order.
  * control_flow_grad.py: Exit -> "b_exit" Enter into the grad frame, Switch ->
    "b_switch" Merge (first visit) and "<switch>_grad_1/NextIteration" (second
    visit), Merge -> Switch on the grad pivot, Enter -> Exit (loop variable)
    or the accumulation loop b_acc..b_acc_3 (loop invariant: the kernel and
    bias reads). Unused exits (c, h) get a zero gradient ("gradients/zeros",
    "gradients/zeros_1").
  * A forward value a gradient needs (GetRealValue) is saved in the forward
    loop by AddForwardAccumulator: "<grad op>/Const" (max_size -1),
    "<grad op>/f_acc" (StackV2, root frame), "<grad op>/Enter" into the forward
    frame, "<grad op>/StackPushV2" (control input ^gradients/Add, and a control
    input of gradients/NextIteration), and popped by AddBackpropAccumulatedValue
    with "<grad op>/StackPopV2" (+ its Enter into the grad frame; as its only
    input is a loop-constant Enter it gets ^gradients/Sub, the grad body
    pivot; a control input of the "b_sync" ControlTrigger that
    gradients/NextIteration_1 waits for). Constants are cloned into the grad loop instead, loop-invariant
    Enters re-entered from their outside value.
  * tensor_array_grad.py: the gather's gradient is TensorArrayGradV3 (source
    "gradients") + gradient_flow Identity + TensorArrayScatterV3 at the root;
    the write's gradient, inside the grad loop, is TensorArrayGradV3 of the
    same forward TensorArray (the same grad array, looked up by source) +
    TensorArrayReadV3 at the popped time.
  * optimizer.py GradientDescentOptimizer: "GradientDescent/learning_rate",
    "GradientDescent/update_<var>/ApplyGradientDescent", NoOp "GradientDescent".

check_dynamic_rnn.py runs the written graph with TF 1.x executor semantics (a
small plain-Python interpreter) and compares it with the reference below.

lstm_train.expected.json holds the feed (inputs, labels), the initial values
and a reference computed here in plain Python (float64 forward LSTM and
backpropagation through time by hand, from the float32 initial values): the
loss before each of 3 SGD steps and after them, every variable after the 3
steps, and the four variables' gradients before training (the fetchable
gradient tensors, for telling a forward from a backward fault).
"""

import json
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from graphdef_text import (GraphDefWriter, a_b, a_i, a_s, a_shape, a_strs,  # noqa: E402
                           a_tensor, a_type, f32, out)

BATCH, TIME, INPUT, UNITS, CLASSES = 4, 5, 3, 6, 2
LEARNING_RATE = 0.1
STEPS = 3
PRODUCER = 134  # GraphDef version of TF 1.15
FRAME = "rnn/while/while_context"
GRAD_FRAME = "gradients/rnn/while/while_context"
PARALLEL = 32
PREVENT_MSG = ("Currently there is no way to take the second derivative of "
               "sparse_softmax_cross_entropy_with_logits due to the fused implementation's interaction "
               "with tf.gradients()")


# ---- deterministic values -------------------------------------------------------
class Lcg:
    """Numerical Recipes' 32-bit LCG; uniform floats rounded to float32."""

    def __init__(self, seed):
        self.state = seed & 0xFFFFFFFF

    def uniform(self, lo, hi):
        self.state = (1664525 * self.state + 1013904223) & 0xFFFFFFFF
        return f32(lo + (hi - lo) * (self.state / 4294967296.0))


def values():
    rng = Lcg(20260523)
    lim_k = math.sqrt(6.0 / (INPUT + UNITS + 4 * UNITS))  # glorot_uniform's limit
    kernel = [rng.uniform(-lim_k, lim_k) for _ in range((INPUT + UNITS) * 4 * UNITS)]
    lim_d = math.sqrt(6.0 / (UNITS + CLASSES))
    dense = [rng.uniform(-lim_d, lim_d) for _ in range(UNITS * CLASSES)]
    inputs = [rng.uniform(-1.0, 1.0) for _ in range(BATCH * TIME * INPUT)]
    labels = [0, 1, 1, 0]
    return kernel, dense, inputs, labels


# ---- the reference: plain Python forward + BPTT ----------------------------------
def sigmoid(v):
    return 1.0 / (1.0 + math.exp(-v))


def matmul(a, b, n, k, m):
    """a [n,k] (flat) @ b [k,m] (flat)."""
    r = [0.0] * (n * m)
    for i in range(n):
        for p in range(k):
            av = a[i * k + p]
            if av == 0.0:
                continue
            row = p * m
            for j in range(m):
                r[i * m + j] += av * b[row + j]
    return r


def loss_and_grads(params, inputs, labels):
    kernel, bias, dk, db = params
    U, I, B = UNITS, INPUT, BATCH
    h = [0.0] * (B * U)
    c = [0.0] * (B * U)
    tape = []
    for t in range(TIME):
        xt = [inputs[(b * TIME + t) * I + k] for b in range(B) for k in range(I)]
        xh = []
        for b in range(B):
            xh += xt[b * I:(b + 1) * I] + h[b * U:(b + 1) * U]
        z = matmul(xh, kernel, B, I + U, 4 * U)
        z = [z[n] + bias[n % (4 * U)] for n in range(B * 4 * U)]
        gi, gj, gf, go, cn, hn = [], [], [], [], [], []
        for b in range(B):
            for u in range(U):
                row = b * 4 * U
                i_, j_, f_, o_ = (z[row + u], z[row + U + u], z[row + 2 * U + u], z[row + 3 * U + u])
                si, tj, sf, so = sigmoid(i_), math.tanh(j_), sigmoid(f_ + 1.0), sigmoid(o_)
                cv = sf * c[b * U + u] + si * tj
                gi.append(si); gj.append(tj); gf.append(sf); go.append(so)
                cn.append(cv); hn.append(so * math.tanh(cv))
        tape.append((xh, c, gi, gj, gf, go, cn))
        c, h = cn, hn
    logits = matmul(h, dk, B, U, CLASSES)
    logits = [logits[n] + db[n % CLASSES] for n in range(B * CLASSES)]
    loss = 0.0
    dlogits = [0.0] * (B * CLASSES)
    for b in range(B):
        row = logits[b * CLASSES:(b + 1) * CLASSES]
        mx = max(row)
        e = [math.exp(v - mx) for v in row]
        s = sum(e)
        loss += -math.log(e[labels[b]] / s)
        for k in range(CLASSES):
            dlogits[b * CLASSES + k] = (e[k] / s - (1.0 if k == labels[b] else 0.0)) / B
    loss /= B
    g_db = [sum(dlogits[b * CLASSES + k] for b in range(B)) for k in range(CLASSES)]
    g_dk = [sum(h[b * U + u] * dlogits[b * CLASSES + k] for b in range(B)) for u in range(U) for k in range(CLASSES)]
    dh = [sum(dlogits[b * CLASSES + k] * dk[u * CLASSES + k] for k in range(CLASSES)) for b in range(B) for u in range(U)]
    dc = [0.0] * (B * U)
    g_k = [0.0] * ((I + U) * 4 * U)
    g_b = [0.0] * (4 * U)
    for t in reversed(range(TIME)):
        xh, cprev, gi, gj, gf, go, cn = tape[t]
        dz = [0.0] * (B * 4 * U)
        dcprev = [0.0] * (B * U)
        for n in range(B * U):
            b, u = divmod(n, U)
            tc = math.tanh(cn[n])
            dcn = dc[n] + dh[n] * go[n] * (1.0 - tc * tc)
            row = b * 4 * U
            dz[row + 3 * U + u] = dh[n] * tc * go[n] * (1.0 - go[n])
            dz[row + u] = dcn * gj[n] * gi[n] * (1.0 - gi[n])
            dz[row + U + u] = dcn * gi[n] * (1.0 - gj[n] * gj[n])
            dz[row + 2 * U + u] = dcn * cprev[n] * gf[n] * (1.0 - gf[n])
            dcprev[n] = dcn * gf[n]
        for r in range(I + U):
            for col in range(4 * U):
                g_k[r * 4 * U + col] += sum(xh[b * (I + U) + r] * dz[b * 4 * U + col] for b in range(B))
        for col in range(4 * U):
            g_b[col] += sum(dz[b * 4 * U + col] for b in range(B))
        dxh = [sum(dz[b * 4 * U + col] * kernel[r * 4 * U + col] for col in range(4 * U))
               for b in range(B) for r in range(I + U)]
        dh = [dxh[b * (I + U) + I + u] for b in range(B) for u in range(U)]
        dc = dcprev
    return loss, (g_k, g_b, g_dk, g_db)


def reference(kernel, dense, inputs, labels):
    params = [list(kernel), [0.0] * (4 * UNITS), list(dense), [0.0] * CLASSES]
    losses = []
    for _ in range(STEPS):
        loss, grads = loss_and_grads(params, inputs, labels)
        losses.append(loss)
        params = [[p - LEARNING_RATE * g for p, g in zip(ps, gs)] for ps, gs in zip(params, grads)]
    losses.append(loss_and_grads(params, inputs, labels)[0])
    return losses, params


# ---- the GraphDef ------------------------------------------------------------------
class Builder:
    def __init__(self):
        self.g = GraphDefWriter()

    def op(self, name, op, inputs=(), attrs=None, control=()):
        return self.g.add(name, op, inputs, attrs, control, exact=True)

    def const(self, name, dtype, dims, vals, control=(), cls=None):
        attrs = {"dtype": a_type(dtype), "value": a_tensor(dtype, dims, vals)}
        if cls:
            attrs["_class"] = a_strs(["loc:@" + cls])
        return self.op(name, "Const", [], attrs, control)

    def enter(self, name, x, dtype, frame, is_constant, cls=None):
        attrs = {"T": a_type(dtype), "frame_name": a_s(frame), "is_constant": a_b(is_constant),
                 "parallel_iterations": a_i(PARALLEL)}
        if cls:
            attrs["_class"] = a_strs(["loc:@" + cls])
        return self.op(name, "Enter", [x], attrs)

    def t(self, name, op, inputs, dtype="float", control=(), cls=None, **extra):
        attrs = {"T": a_type(dtype)}
        attrs.update(extra)
        if cls:
            attrs["_class"] = a_strs(["loc:@" + cls])
        return self.op(name, op, inputs, attrs, control)

    def merge(self, name, a, b, dtype="float"):
        return self.op(name, "Merge", [a, b], {"N": a_i(2), "T": a_type(dtype)})

    def switch(self, name, x, pred, dtype, cls):
        """cls: the Merge _SwitchRefOrTensor colocates with; None for control_flow_ops.switch()."""
        return self.t(name, "Switch", [x, pred], dtype, cls=cls)

    def strided_slice(self, scope, x, begin, end, strides, shrink, begin_mask=0, end_mask=0, control=()):
        n = len(begin)
        b = self.const(scope + "/stack", "int32", [n], begin, control)
        e = self.const(scope + "/stack_1", "int32", [n], end, control)
        s = self.const(scope + "/stack_2", "int32", [n], strides, control)
        return self.op(scope, "StridedSlice", [x, b, e, s], {
            "Index": a_type("int32"), "T": a_type("int32" if x.endswith("Shape") else "float"),
            "begin_mask": a_i(begin_mask), "ellipsis_mask": a_i(0), "end_mask": a_i(end_mask),
            "new_axis_mask": a_i(0), "shrink_axis_mask": a_i(shrink)})

    def concat(self, name, values, axis_value, dtype, control=(), axis=None):
        if axis is None:
            axis = self.const(name + "/axis", "int32", [], [axis_value], control)
        return self.op(name, "ConcatV2", list(values) + [axis],
                       {"N": a_i(len(values)), "T": a_type(dtype), "Tidx": a_type("int32")})

    def rng(self, scope, start, limit, cls=None):
        s = self.const(scope + "/start", "int32", [], [start], cls=cls)
        d = self.const(scope + "/delta", "int32", [], [1], cls=cls)
        attrs = {"Tidx": a_type("int32")}
        if cls:
            attrs["_class"] = a_strs(["loc:@" + cls])
        return self.op(scope, "Range", [s, limit, d], attrs)

    def variable(self, name, dims, init_name, init_vals):
        self.const(init_name, "float", dims, init_vals, cls=name)
        self.op(name, "VariableV2", [], {"container": a_s(""), "dtype": a_type("float"), "shape": a_shape(dims),
                                         "shared_name": a_s("")})
        self.op(name + "/Assign", "Assign", [name, init_name], {
            "T": a_type("float"), "_class": a_strs(["loc:@" + name]), "use_locking": a_b(True),
            "validate_shape": a_b(True)})
        return self.t(name + "/read", "Identity", [name], cls=name)

    def tuple_(self, scope, grads, classes, gating_order=None):
        """control_flow_ops.tuple: group_deps + one control_dependency per gradient.

        grads: tensor names in order; classes: the colocation group of each;
        gating_order: the producing ops in creation order when it differs."""
        gating = []
        for gname in gating_order or grads:
            op_name = gname.split(":")[0]
            if op_name not in gating:
                gating.append(op_name)
        gd = self.op(scope + "/tuple/group_deps", "NoOp", [], {}, control=gating)
        outs = []
        for k, (gname, cls) in enumerate(zip(grads, classes)):
            suffix = "" if k == 0 else "_%d" % k
            outs.append(self.t(scope + "/tuple/control_dependency" + suffix, "Identity", [gname], cls=cls,
                               control=[gd]))
        return outs


def build(kernel0, dense0):
    B = Builder()
    I_ = "rnn/while/Identity"  # the forward body pivot
    # ---- inputs ----
    B.op("inputs", "Placeholder", [], {"dtype": a_type("float"), "shape": a_shape([BATCH, TIME, INPUT])})
    B.op("labels", "Placeholder", [], {"dtype": a_type("int32"), "shape": a_shape([BATCH])})

    # ---- dynamic_rnn: _transpose_batch_time ----
    rank = B.const("rnn/Rank", "int32", [], [3])
    rg = B.rng("rnn/range", 2, rank)
    v0 = B.const("rnn/concat/values_0", "int32", [2], [1, 0])
    perm = B.concat("rnn/concat", [v0, rg], 0, "int32")
    xt = B.op("rnn/transpose", "Transpose", ["inputs", perm], {"T": a_type("float"), "Tperm": a_type("int32")})

    # ---- LSTMCell.zero_state ----
    zs = "rnn/LSTMCellZeroState/"
    zeros_state = []
    for k in range(2):  # c, then h
        sfx = "" if k == 0 else "_1"
        p = B.const(zs + "Const" + ("" if k == 0 else "_%d" % (4 * k)), "int32", [1], [BATCH])
        s = B.const(zs + "Const_%d" % (4 * k + 1), "int32", [1], [UNITS])
        shp = B.concat(zs + "concat" + sfx, [p, s], 0, "int32")
        zc = B.const(zs + "zeros" + sfx + "/Const", "float", [], [0.0])
        zeros_state.append(B.op(zs + "zeros" + sfx, "Fill", [shp, zc], {"T": a_type("float"),
                                                                        "index_type": a_type("int32")}))
        B.const(zs + "Const_%d" % (4 * k + 2), "int32", [1], [BATCH])  # _concat(static=True) makes them too
        B.const(zs + "Const_%d" % (4 * k + 3), "int32", [1], [UNITS])

    # ---- _dynamic_rnn_loop ----
    shape = B.const("rnn/Shape", "int32", [3], [TIME, BATCH, INPUT])
    time_steps = B.strided_slice("rnn/strided_slice", shape, [0], [1], [1], shrink=1)
    p = B.const("rnn/Const", "int32", [1], [BATCH])
    s = B.const("rnn/Const_1", "int32", [1], [UNITS])
    zshape = B.concat("rnn/concat_1", [p, s], 0, "int32")
    zc = B.const("rnn/zeros/Const", "float", [], [0.0])
    B.op("rnn/zeros", "Fill", [zshape, zc], {"T": a_type("float"), "index_type": a_type("int32")})
    B.const("rnn/time", "int32", [], [0])

    def ta(name, elem, ta_name):
        return B.op(name, "TensorArrayV3", [time_steps], {
            "clear_after_read": a_b(True), "dtype": a_type("float"), "dynamic_size": a_b(False),
            "element_shape": a_shape(elem), "identical_element_shapes": a_b(True),
            "tensor_array_name": a_s(ta_name)})
    out_ta = ta("rnn/TensorArray", [BATCH, UNITS], "rnn/dynamic_rnn/output_0")
    in_ta = ta("rnn/TensorArray_1", [BATCH, INPUT], "rnn/dynamic_rnn/input_0")
    us = "rnn/TensorArrayUnstack/"
    ushape = B.const(us + "Shape", "int32", [3], [TIME, BATCH, INPUT])
    n_el = B.strided_slice(us + "strided_slice", ushape, [0], [1], [1], shrink=1)
    urange = B.rng(us + "range", 0, n_el)
    scatter = B.t(us + "TensorArrayScatter/TensorArrayScatterV3", "TensorArrayScatterV3",
                  [in_ta, urange, xt, out(in_ta, 1)], cls="rnn/transpose")
    mx1 = B.const("rnn/Maximum/x", "int32", [], [1])
    mx = B.t("rnn/Maximum", "Maximum", [mx1, time_steps], "int32")
    bound = B.t("rnn/Minimum", "Minimum", [time_steps, mx], "int32")

    # ---- while_loop ----
    w = "rnn/while/"
    counter = B.const(w + "iteration_counter", "int32", [], [0])
    init = [(counter, "int32"), ("rnn/time", "int32"), (out(out_ta, 1), "float"),
            (zeros_state[0], "float"), (zeros_state[1], "float")]
    sfx = ["", "_1", "_2", "_3", "_4"]
    enters = [B.enter(w + "Enter" + sfx[k], v, dt, FRAME, False) for k, (v, dt) in enumerate(init)]
    merges = [B.merge(w + "Merge" + sfx[k], enters[k], w + "NextIteration" + sfx[k], init[k][1]) for k in range(5)]
    less = B.t(w + "Less", "Less", [merges[0], w + "Less/Enter"], "int32")
    B.enter(w + "Less/Enter", time_steps, "int32", FRAME, True)
    less1 = B.t(w + "Less_1", "Less", [merges[1], w + "Less_1/Enter"], "int32")
    B.enter(w + "Less_1/Enter", bound, "int32", FRAME, True)
    land = B.op(w + "LogicalAnd", "LogicalAnd", [less, less1])
    cond = B.op(w + "LoopCond", "LoopCond", [land])
    switches = [B.switch(w + "Switch" + sfx[k], merges[k], cond, init[k][1], merges[k]) for k in range(5)]
    ids = [B.t(w + "Identity" + sfx[k], "Identity", [out(switches[k], 1)], init[k][1]) for k in range(5)]
    # body: i + 1, then _time_step
    one = B.const(w + "add/y", "int32", [], [1], control=[I_])
    add_cnt = B.t(w + "add", "AddV2", [ids[0], one], "int32")
    read = B.op(w + "TensorArrayReadV3", "TensorArrayReadV3",
                [w + "TensorArrayReadV3/Enter", ids[1], w + "TensorArrayReadV3/Enter_1"], {"dtype": a_type("float")})
    B.enter(w + "TensorArrayReadV3/Enter", in_ta, "resource", FRAME, True)
    B.enter(w + "TensorArrayReadV3/Enter_1", scatter, "float", FRAME, True)
    # LSTMCell.build (variables outside the loop) and call
    kread = B.variable("rnn/lstm_cell/kernel", [INPUT + UNITS, 4 * UNITS], "rnn/lstm_cell/kernel/Initializer/Const",
                       kernel0)
    bread = B.variable("rnn/lstm_cell/bias", [4 * UNITS], "rnn/lstm_cell/bias/Initializer/zeros", [0.0])
    L = w + "lstm_cell/"
    xh = B.concat(L + "concat", [read, ids[4]], 1, "float", control=[I_])
    mm = B.t(L + "MatMul", "MatMul", [xh, L + "MatMul/Enter"], transpose_a=a_b(False), transpose_b=a_b(False))
    B.enter(L + "MatMul/Enter", kread, "float", FRAME, True)
    ba = B.t(L + "BiasAdd", "BiasAdd", [mm, L + "BiasAdd/Enter"], data_format=a_s("NHWC"))
    B.enter(L + "BiasAdd/Enter", bread, "float", FRAME, True)
    B.const(L + "Const", "int32", [], [4], control=[I_])  # split's convert_to_tensor(num_or_size_splits)
    split_dim = B.const(L + "split/split_dim", "int32", [], [1], control=[I_])
    split = B.t(L + "split", "Split", [split_dim, ba], num_split=a_i(4))
    fb = B.const(L + "add/y", "float", [], [1.0], control=[I_])
    add_f = B.t(L + "add", "AddV2", [out(split, 2), fb])
    sig_f = B.t(L + "Sigmoid", "Sigmoid", [add_f])
    mul = B.t(L + "mul", "Mul", [sig_f, ids[3]])
    sig_i = B.t(L + "Sigmoid_1", "Sigmoid", [split])
    tanh_j = B.t(L + "Tanh", "Tanh", [out(split, 1)])
    mul1 = B.t(L + "mul_1", "Mul", [sig_i, tanh_j])
    c_new = B.t(L + "add_1", "AddV2", [mul, mul1])
    sig_o = B.t(L + "Sigmoid_2", "Sigmoid", [out(split, 3)])
    tanh_c = B.t(L + "Tanh_1", "Tanh", [c_new])
    h_new = B.t(L + "mul_2", "Mul", [sig_o, tanh_c])
    write = B.t(w + "TensorArrayWrite/TensorArrayWriteV3", "TensorArrayWriteV3",
                [w + "TensorArrayWrite/TensorArrayWriteV3/Enter", ids[1], h_new, ids[2]], cls=h_new)
    B.enter(w + "TensorArrayWrite/TensorArrayWriteV3/Enter", out_ta, "resource", FRAME, True, cls=h_new)
    one1 = B.const(w + "add_1/y", "int32", [], [1], control=[I_])
    add_time = B.t(w + "add_1", "AddV2", [ids[1], one1], "int32")
    nexts_in = [add_cnt, add_time, write, c_new, h_new]
    for k in range(5):
        B.t(w + "NextIteration" + sfx[k], "NextIteration", [nexts_in[k]], init[k][1])
    exits = [B.t(w + "Exit" + sfx[k], "Exit", [switches[k]], init[k][1]) for k in range(5)]

    # ---- TensorArrayStack and the transpose back ----
    st = "rnn/TensorArrayStack/"
    srange = B.rng(st + "range", 0, time_steps, cls=out_ta)
    gather = B.op(st + "TensorArrayGatherV3", "TensorArrayGatherV3", [out_ta, srange, exits[2]], {
        "_class": a_strs(["loc:@" + out_ta]), "dtype": a_type("float"), "element_shape": a_shape([BATCH, UNITS])})
    rank1 = B.const("rnn/Rank_1", "int32", [], [3])
    rg1 = B.rng("rnn/range_1", 2, rank1)
    v2 = B.const("rnn/concat_2/values_0", "int32", [2], [1, 0])
    perm1 = B.concat("rnn/concat_2", [v2, rg1], 0, "int32")
    outputs = B.op("rnn/transpose_1", "Transpose", [gather, perm1], {"T": a_type("float"), "Tperm": a_type("int32")})

    # ---- outputs[:, -1], dense, loss ----
    last = B.strided_slice("strided_slice", outputs, [0, -1], [0, 0], [1, 1], shrink=2, begin_mask=1, end_mask=1)
    dkread = B.variable("dense/kernel", [UNITS, CLASSES], "dense/kernel/Initializer/Const", dense0)
    dbread = B.variable("dense/bias", [CLASSES], "dense/bias/Initializer/zeros", [0.0])
    dmm = B.t("dense/MatMul", "MatMul", [last, dkread], transpose_a=a_b(False), transpose_b=a_b(False))
    logits = B.t("dense/BiasAdd", "BiasAdd", [dmm, dbread], data_format=a_s("NHWC"))
    S = "SparseSoftmaxCrossEntropyWithLogits/"
    B.const(S + "Shape", "int32", [1], [BATCH])
    xent = B.op(S + "SparseSoftmaxCrossEntropyWithLogits", "SparseSoftmaxCrossEntropyWithLogits",
                [logits, "labels"], {"T": a_type("float"), "Tlabels": a_type("int32")})
    axes = B.const("Const", "int32", [1], [0])
    loss = B.op("Mean", "Mean", [xent, axes], {"T": a_type("float"), "Tidx": a_type("int32"), "keep_dims": a_b(False)})

    # ---- gradients ----
    G = "gradients/"
    gshape = B.const(G + "Shape", "int32", [0], [])
    gy = B.const(G + "grad_ys_0", "float", [], [1.0])
    fill = B.op(G + "Fill", "Fill", [gshape, gy], {"T": a_type("float"), "index_type": a_type("int32")})
    # _GradLoopState: forward counter, grad context, backprop counter
    fc = B.const(G + "f_count", "int32", [], [0])
    fc1 = B.enter(G + "f_count_1", fc, "int32", FRAME, False)
    fm = B.merge(G + "Merge", fc1, G + "NextIteration", "int32")
    fs = B.switch(G + "Switch", fm, cond, "int32", None)  # plain switch(): no colocation
    fy = B.const(G + "Add/y", "int32", [], [1], control=[I_])
    fadd = B.t(G + "Add", "Add", [out(fs, 1), fy], "int32")
    f_next = B.t(G + "NextIteration", "NextIteration", [fadd], "int32")
    fc2 = B.t(G + "f_count_2", "Exit", [fs], "int32")
    bc = B.const(G + "b_count", "int32", [], [1])
    bc1 = B.enter(G + "b_count_1", fc2, "int32", GRAD_FRAME, False)
    bm = B.merge(G + "Merge_1", bc1, G + "NextIteration_1", "int32")
    ge = B.t(G + "GreaterEqual", "GreaterEqual", [bm, G + "GreaterEqual/Enter"], "int32")
    B.enter(G + "GreaterEqual/Enter", bc, "int32", GRAD_FRAME, True)
    pivot = B.op(G + "b_count_2", "LoopCond", [ge])
    bs = B.switch(G + "Switch_1", bm, pivot, "int32", None)
    sub = B.t(G + "Sub", "Sub", [out(bs, 1), G + "GreaterEqual/Enter"], "int32")
    b_next = B.t(G + "NextIteration_1", "NextIteration", [sub], "int32")
    B.t(G + "b_count_3", "Exit", [bs], "int32")
    P = [sub]  # control input of a Const made in the grad loop (its body pivot)

    history = {}    # forward tensor -> its pop in the grad loop
    sync = []       # [b_sync name] once made

    def real(value, scope, dtype, cls):
        """GetRealValue: a forward loop value in the grad loop, through a stack."""
        if value in history:
            return history[value]
        mxs = B.const(scope + "/Const", "int32", [], [-1], cls=cls)
        acc = B.op(scope + "/f_acc", "StackV2", [mxs], {"_class": a_strs(["loc:@" + cls]), "elem_type": a_type(dtype),
                                                         "stack_name": a_s("")})
        enter_acc = B.enter(scope + "/Enter", acc, "resource", FRAME, True)
        push = B.op(scope + "/StackPushV2", "StackPushV2", [enter_acc, value],
                    {"T": a_type(dtype), "swap_memory": a_b(False)}, control=[fadd])
        B.g.add_control(f_next, [push])
        # Its only input is a loop-constant Enter, so _MaybeAddControlDependency gives it the
        # grad loop's body pivot as a control input (no pop in the iteration that exits).
        pop = B.op(scope + "/StackPopV2", "StackPopV2", [scope + "/StackPopV2/Enter"], {"elem_type": a_type(dtype)},
                   control=[sub])
        B.enter(scope + "/StackPopV2/Enter", acc, "resource", GRAD_FRAME, True)
        if not sync:
            sync.append(B.op(scope + "/b_sync", "ControlTrigger", [], {}, control=[pop]))
            B.g.add_control(b_next, [sync[0]])
        else:
            B.g.add_control(sync[0], [pop])
        history[value] = pop
        return pop

    def reenter(consumer, outside, dtype):
        """GetRealValue of a loop-invariant Enter: the outside value enters the grad frame."""
        return B.enter(consumer + "/Enter", outside, dtype, GRAD_FRAME, True)

    # Mean
    MG = G + "Mean_grad/"
    rs = B.const(MG + "Reshape/shape", "int32", [1], [1])
    r = B.op(MG + "Reshape", "Reshape", [fill, rs], {"T": a_type("float"), "Tshape": a_type("int32")})
    mc = B.const(MG + "Const", "int32", [1], [BATCH])
    tile = B.op(MG + "Tile", "Tile", [r, mc], {"T": a_type("float"), "Tmultiples": a_type("int32")})
    mc1 = B.const(MG + "Const_1", "float", [], [float(BATCH)])
    g_xent = B.t(MG + "truediv", "RealDiv", [tile, mc1])
    # SparseSoftmaxCrossEntropyWithLogits
    SG = G + S + "SparseSoftmaxCrossEntropyWithLogits_grad/"
    pg = B.t(SG + "PreventGradient", "PreventGradient", [out(xent, 1)], message=a_s(PREVENT_MSG))
    ed = B.const(SG + "ExpandDims/dim", "int32", [], [-1])
    ex = B.op(SG + "ExpandDims", "ExpandDims", [g_xent, ed], {"T": a_type("float"), "Tdim": a_type("int32")})
    g_logits = B.t(SG + "mul", "Mul", [ex, pg])
    # dense/BiasAdd
    bag = B.t(G + "dense/BiasAdd_grad/BiasAddGrad", "BiasAddGrad", [g_logits], data_format=a_s("NHWC"))
    g_dmm, g_db = B.tuple_(G + "dense/BiasAdd_grad", [g_logits, bag], [g_logits, bag])
    # dense/MatMul
    m0 = B.t(G + "dense/MatMul_grad/MatMul", "MatMul", [g_dmm, dkread], transpose_a=a_b(False), transpose_b=a_b(True))
    m1 = B.t(G + "dense/MatMul_grad/MatMul_1", "MatMul", [last, g_dmm], transpose_a=a_b(True), transpose_b=a_b(False))
    g_last, g_dk = B.tuple_(G + "dense/MatMul_grad", [m0, m1], [m0, m1])
    # strided_slice
    ssh = B.const(G + "strided_slice_grad/Shape", "int32", [3], [BATCH, TIME, UNITS])
    g_out = B.op(G + "strided_slice_grad/StridedSliceGrad", "StridedSliceGrad",
                 [ssh, "strided_slice/stack", "strided_slice/stack_1", "strided_slice/stack_2", g_last], {
                     "Index": a_type("int32"), "T": a_type("float"), "begin_mask": a_i(1), "ellipsis_mask": a_i(0),
                     "end_mask": a_i(1), "new_axis_mask": a_i(0), "shrink_axis_mask": a_i(2)})
    # rnn/transpose_1
    ip = B.t(G + "rnn/transpose_1_grad/InvertPermutation", "InvertPermutation", [perm1], "int32")
    g_gather = B.op(G + "rnn/transpose_1_grad/transpose", "Transpose", [g_out, ip],
                    {"T": a_type("float"), "Tperm": a_type("int32")})
    # TensorArrayGatherV3 -> TensorArrayGradV3 + TensorArrayScatterV3
    TG = G + "rnn/TensorArrayStack/TensorArrayGatherV3_grad/"
    tg = B.op(TG + "TensorArrayGrad/TensorArrayGradV3", "TensorArrayGradV3", [out_ta, exits[2]],
              {"_class": a_strs(["loc:@" + out_ta]), "source": a_s("gradients")})
    gf = B.t(TG + "TensorArrayGrad/gradient_flow", "Identity", [exits[2]], control=[tg], cls=out_ta)
    g_exit2 = B.t(TG + "TensorArrayScatter/TensorArrayScatterV3", "TensorArrayScatterV3", [tg, srange, g_gather, gf])
    # unused exits get zeros
    z0 = B.const(G + "zeros", "float", [BATCH, UNITS], [0.0])
    z1 = B.const(G + "zeros_1", "float", [BATCH, UNITS], [0.0])
    # Exit -> b_exit
    b_exit = {}
    for k, g in ((2, g_exit2), (3, z0), (4, z1)):
        b_exit[k] = B.enter(G + w + "Exit%s_grad/b_exit" % sfx[k], g, "float", GRAD_FRAME, False)
    # Switch (first visit) -> b_switch
    b_switch = {k: B.merge(G + w + "Switch%s_grad/b_switch" % sfx[k], b_exit[k], b_exit[k]) for k in (2, 3, 4)}
    # Merge -> Switch on the grad pivot + tuple
    merge_grad = {}
    for k in (2, 3, 4):
        sw = B.switch(G + w + "Merge%s_grad/Switch" % sfx[k], b_switch[k], pivot, "float", b_switch[k])
        merge_grad[k] = B.tuple_(G + w + "Merge%s_grad" % sfx[k], [sw, out(sw, 1)], [b_switch[k], b_switch[k]])

    def back_edge(k, grad):
        """_SwitchGrad's second visit: NextIteration into the b_switch Merge's second input."""
        n = B.t(G + w + "Switch%s_grad_1/NextIteration" % sfx[k], "NextIteration", [grad])
        B.g.by_name[b_switch[k]]["input"][1] = n

    # Enter (loop variable) -> Exit, NextIteration -> pass through
    for k in (2, 3, 4):
        B.t(G + w + "Enter%s_grad/Exit" % sfx[k], "Exit", [merge_grad[k][0]])
    # TensorArrayWriteV3 -> TensorArrayGradV3 (same grad array) + TensorArrayReadV3
    WG = G + w + "TensorArrayWrite/TensorArrayWriteV3_grad/"
    flow_g = merge_grad[2][1]
    wtg = B.op(WG + "TensorArrayGrad/TensorArrayGradV3", "TensorArrayGradV3",
               [WG + "TensorArrayGrad/TensorArrayGradV3/Enter", flow_g],
               {"_class": a_strs(["loc:@" + h_new]), "source": a_s("gradients")})
    B.enter(WG + "TensorArrayGrad/TensorArrayGradV3/Enter", out_ta, "resource", GRAD_FRAME, True, cls=h_new)
    wgf = B.t(WG + "TensorArrayGrad/gradient_flow", "Identity", [flow_g], control=[wtg], cls=h_new)
    rd_name = WG + "TensorArrayReadV3"
    B.op(rd_name, "TensorArrayReadV3", [wtg, rd_name + "/StackPopV2", wgf], {"dtype": a_type("float")})
    real(ids[1], rd_name, "int32", ids[1])
    g_h_ta, g_flow = B.tuple_(WG[:-1], [rd_name, flow_g], [rd_name, b_switch[2]], gating_order=[flow_g, rd_name])
    # mul_2 (h = sigmoid(o) * tanh(c)): AddN of the next step's h gradient and the TensorArray's
    g_h = B.op(G + "AddN", "AddN", [merge_grad[4][1], g_h_ta],
               {"N": a_i(2), "T": a_type("float"), "_class": a_strs(["loc:@" + b_switch[4]])})

    def mul_grad(mul_op, x, y, g, xcls, ycls):
        """_MulGrad with equal, fully known shapes: grad * y, grad * x (forward values popped)."""
        scope = G + mul_op + "_grad/"
        a = B.t(scope + "Mul", "Mul", [g, scope + "Mul/StackPopV2" if y not in history else history[y]])
        real(y, scope + "Mul", "float", ycls)
        b = B.t(scope + "Mul_1", "Mul", [g, scope + "Mul_1/StackPopV2" if x not in history else history[x]])
        real(x, scope + "Mul_1", "float", xcls)
        return B.tuple_(scope[:-1], [a, b], [a, b])

    g_sig_o, g_tanh_c = mul_grad(L + "mul_2", sig_o, tanh_c, g_h, sig_o, tanh_c)
    d_o = B.t(G + L + "Sigmoid_2_grad/SigmoidGrad", "SigmoidGrad", [history[sig_o], g_sig_o])
    d_c_tanh = B.t(G + L + "Tanh_1_grad/TanhGrad", "TanhGrad", [history[tanh_c], g_tanh_c])
    # Switch_2 visited the second time (through Identity_2): the back edge
    back_edge(2, g_flow)
    # add_1 (c = mul + mul_1): AddN of the next step's c gradient and tanh(c)'s
    g_c = B.op(G + "AddN_1", "AddN", [merge_grad[3][1], d_c_tanh],
               {"N": a_i(2), "T": a_type("float"), "_class": a_strs(["loc:@" + b_switch[3]])})
    g_mul, g_mul1 = B.tuple_(G + L + "add_1_grad", [g_c, g_c], [b_switch[3], b_switch[3]])
    g_sig_f, g_cprev = mul_grad(L + "mul", sig_f, ids[3], g_mul, sig_f, ids[3])
    g_sig_i, g_tanh_j = mul_grad(L + "mul_1", sig_i, tanh_j, g_mul1, sig_i, tanh_j)
    d_f = B.t(G + L + "Sigmoid_grad/SigmoidGrad", "SigmoidGrad", [history[sig_f], g_sig_f])
    d_i = B.t(G + L + "Sigmoid_1_grad/SigmoidGrad", "SigmoidGrad", [history[sig_i], g_sig_i])
    d_j = B.t(G + L + "Tanh_grad/TanhGrad", "TanhGrad", [history[tanh_j], g_tanh_j])
    # add (f + forget_bias): BroadcastGradientArgs, Sum, Reshape
    AG = G + L + "add_grad/"
    sx = B.const(AG + "Shape", "int32", [2], [BATCH, UNITS], control=P)
    sy = B.const(AG + "Shape_1", "int32", [0], [], control=P)
    bga = B.t(AG + "BroadcastGradientArgs", "BroadcastGradientArgs", [sx, sy], "int32")
    s0 = B.op(AG + "Sum", "Sum", [d_f, bga], {"T": a_type("float"), "Tidx": a_type("int32"), "keep_dims": a_b(False)})
    r0 = B.op(AG + "Reshape", "Reshape", [s0, sx], {"T": a_type("float"), "Tshape": a_type("int32")})
    s1 = B.op(AG + "Sum_1", "Sum", [d_f, out(bga, 1)],
              {"T": a_type("float"), "Tidx": a_type("int32"), "keep_dims": a_b(False)})
    r1 = B.op(AG + "Reshape_1", "Reshape", [s1, sy], {"T": a_type("float"), "Tshape": a_type("int32")})
    d_f2, _ = B.tuple_(AG[:-1], [r0, r1], [r0, r1])
    back_edge(3, g_cprev)
    # split -> concat of the four gate gradients (split_dim cloned into the grad loop)
    sg = G + L + "split_grad/concat"
    d_z = B.op(sg, "ConcatV2", [d_i, d_j, d_f2, d_o, sg + "/Const"],
               {"N": a_i(4), "T": a_type("float"), "Tidx": a_type("int32")})
    B.const(sg + "/Const", "int32", [], [1], control=P)
    # BiasAdd
    bg = B.t(G + L + "BiasAdd_grad/BiasAddGrad", "BiasAddGrad", [d_z], data_format=a_s("NHWC"))
    g_mm, g_bias_t = B.tuple_(G + L + "BiasAdd_grad", [d_z, bg], [d_z, bg])
    # MatMul: kernel re-entered from outside, concat popped
    MM = G + L + "MatMul_grad/"
    mg0 = B.t(MM + "MatMul", "MatMul", [g_mm, MM + "MatMul/Enter"], transpose_a=a_b(False), transpose_b=a_b(True))
    reenter(MM + "MatMul", kread, "float")
    mg1 = B.t(MM + "MatMul_1", "MatMul", [MM + "MatMul_1/StackPopV2", g_mm], transpose_a=a_b(True),
              transpose_b=a_b(False))
    real(xh, MM + "MatMul_1", "float", xh)
    g_xh, g_kernel_t = B.tuple_(MM[:-1], [mg0, mg1], [mg0, mg1])

    def accumulate(enter_op, grad, dims):
        """AddBackpropAccumulator: sum a loop invariant's gradient over the grad loop."""
        scope = G + enter_op + "_grad/"
        acc = B.const(scope + "b_acc", "float", dims, [0.0])
        e = B.enter(scope + "b_acc_1", acc, "float", GRAD_FRAME, False)
        m = B.op(scope + "b_acc_2", "Merge", [e, scope + "NextIteration"], {"N": a_i(2), "T": a_type("float")})
        sw = B.switch(scope + "Switch", m, pivot, "float", None)
        add = B.t(scope + "Add", "Add", [out(sw, 1), grad])
        B.t(scope + "NextIteration", "NextIteration", [add])
        return B.t(scope + "b_acc_3", "Exit", [sw])

    g_bias = accumulate(L + "BiasAdd/Enter", g_bias_t, [4 * UNITS])
    # concat ([x_t, h]): ConcatOffset + Slice
    CG = G + L + "concat_grad/"
    # _ConcatGradHelper re-creates a constant concat_dim from another context in the grad's.
    cdim = B.const(CG + "Const", "int32", [], [1], control=P)
    crank = B.const(CG + "Rank", "int32", [], [2], control=P)
    cmod = B.t(CG + "mod", "FloorMod", [cdim, crank], "int32")
    cs0 = B.const(CG + "Shape", "int32", [2], [BATCH, INPUT], control=P)
    cs1 = B.const(CG + "Shape_1", "int32", [2], [BATCH, UNITS], control=P)
    co = B.op(CG + "ConcatOffset", "ConcatOffset", [cmod, cs0, cs1], {"N": a_i(2)})
    sl0 = B.op(CG + "Slice", "Slice", [g_xh, co, cs0], {"Index": a_type("int32"), "T": a_type("float")})
    sl1 = B.op(CG + "Slice_1", "Slice", [g_xh, out(co, 1), cs1], {"Index": a_type("int32"), "T": a_type("float")})
    _, g_hprev = B.tuple_(CG[:-1], [sl0, sl1], [sl0, sl1])
    g_kernel = accumulate(L + "MatMul/Enter", g_kernel_t, [INPUT + UNITS, 4 * UNITS])
    back_edge(4, g_hprev)

    # ---- GradientDescentOptimizer.apply_gradients ----
    lr = B.const("GradientDescent/learning_rate", "float", [], [LEARNING_RATE])
    updates = []
    for var, grad in (("rnn/lstm_cell/kernel", g_kernel), ("rnn/lstm_cell/bias", g_bias),
                      ("dense/kernel", g_dk), ("dense/bias", g_db)):
        updates.append(B.op("GradientDescent/update_%s/ApplyGradientDescent" % var, "ApplyGradientDescent",
                            [var, lr, grad], {"T": a_type("float"), "_class": a_strs(["loc:@" + var]),
                                              "use_locking": a_b(False)}))
    B.op("GradientDescent", "NoOp", [], {}, control=updates)
    return B.g


HEADER = """\
Generated by make_dynamic_rnn.py (standard library only); do not edit.
TF 1.15 graph of tf.nn.dynamic_rnn(LSTMCell(6)) on inputs [4, 5, 3], a dense
layer on outputs[:, -1], sparse softmax cross-entropy and
GradientDescentOptimizer(0.1).minimize: the forward frame
rnn/while/while_context, the gradient frame gradients/rnn/while/while_context
(stacks, TensorArrayGradV3, accumulators). Fetch Mean, run GradientDescent;
run the */Assign initializers first. Reference: lstm_train.expected.json."""


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    kernel0, dense0, inputs, labels = values()
    g = build(kernel0, dense0)
    with open(os.path.join(here, "lstm_train.pbtxt"), "w") as f:
        f.write(g.text(PRODUCER, HEADER))
    losses, params = reference(kernel0, dense0, inputs, labels)
    _, grads0 = loss_and_grads([kernel0, [0.0] * (4 * UNITS), dense0, [0.0] * CLASSES], inputs, labels)
    doc = {
        "comment": "Written by make_dynamic_rnn.py: feed, initial values, and a plain-Python float64 reference "
                   "(forward LSTM + BPTT) of the loss before each of %d SGD steps (lr %g) and after them, and of "
                   "the variables after them." % (STEPS, LEARNING_RATE),
        "learning_rate": LEARNING_RATE,
        "steps": STEPS,
        "feed": {"inputs": {"shape": [BATCH, TIME, INPUT], "values": inputs},
                 "labels": {"shape": [BATCH], "values": labels}},
        "initial": {"rnn/lstm_cell/kernel": kernel0, "dense/kernel": dense0},
        "loss": losses,
        "gradients_before_training": {
            "gradients/rnn/while/lstm_cell/MatMul/Enter_grad/b_acc_3": grads0[0],
            "gradients/rnn/while/lstm_cell/BiasAdd/Enter_grad/b_acc_3": grads0[1],
            "gradients/dense/MatMul_grad/tuple/control_dependency_1": grads0[2],
            "gradients/dense/BiasAdd_grad/tuple/control_dependency_1": grads0[3],
        },
        "variables_after": {
            "rnn/lstm_cell/kernel": {"shape": [INPUT + UNITS, 4 * UNITS], "values": params[0]},
            "rnn/lstm_cell/bias": {"shape": [4 * UNITS], "values": params[1]},
            "dense/kernel": {"shape": [UNITS, CLASSES], "values": params[2]},
            "dense/bias": {"shape": [CLASSES], "values": params[3]},
        },
    }
    with open(os.path.join(here, "lstm_train.expected.json"), "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
