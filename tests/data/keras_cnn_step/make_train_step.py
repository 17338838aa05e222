#!/usr/bin/env python3
"""Writes train_step.pbtxt (and train_step_mixed.pbtxt): a Keras training step
as TensorFlow 2.x exports it, for a small ResNet-style CNN trained with Adam.

Standard library only; run it from anywhere:  python3 make_train_step.py
We hold no real export of this kind, so this script writes the GraphDef that
TF 2.x (Keras 2.6-2.10 era, OptimizerV2) writes for

    inputs  = keras.Input((16, 16, 3))
    x = layers.ZeroPadding2D(1)(inputs)
    x = layers.Conv2D(8, 3, strides=2)(x)                 # stem, with bias
    x = layers.BatchNormalization()(x)
    x = layers.Activation("relu")(x)
    x = layers.ZeroPadding2D(1)(x)
    x = shortcut = layers.MaxPooling2D(3, strides=2)(x)
    x = layers.Conv2D(8, 3, padding="same", use_bias=False)(x)
    x = layers.BatchNormalization()(x)
    x = layers.Activation("relu")(x)
    x = layers.Conv2D(8, 3, padding="same", use_bias=False)(x)
    x = layers.BatchNormalization()(x)
    x = layers.Add()([x, shortcut])
    x = layers.Activation("relu")(x)
    x = layers.GlobalAveragePooling2D()(x)
    outputs = layers.Dense(10)(x)
    model = keras.Model(inputs, outputs)                  # named "model"
    model.compile(optimizer=keras.optimizers.Adam(),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])

    @tf.function
    def step(images, labels):                             # images [8,16,16,3], labels int32 [8]
        return model.train_step((images, labels))
    graph = step.get_concrete_function(...)  -> instantiated as a function body

i.e. the body TensorFlow's function runtime instantiates (function.cc
InstantiateFunction): one _Arg per input in signature order (the data
arguments, then every captured variable handle in the order the trace first
used it), the body's nodes, one _Retval per output named "<output>_RetVal".
(model.make_train_function() traces the same train_step, with an `iterator`
argument and IteratorGetNext in place of the two data arguments.)

How each name arises, from TensorFlow's and Keras's sources:
  * a captured variable's _Arg is named after the placeholder FuncGraph.capture
    makes for it, "<op that first read it>/<input arg>" normalized (lower case,
    '/' -> '_'): model/conv2d/Conv2D/ReadVariableOp/resource ->
    model_conv2d_conv2d_readvariableop_resource; Adam's slots are first used by
    ResourceApplyAdam's m and v inputs -> adam_adam_update_resourceapplyadam_m.
    Each carries _handle_dtypes/_handle_shapes (the variable's dtype, shape).
  * layers run in the model's name scope ("model/conv2d/Conv2D"); fused
    BatchNormalization in training (use_fused_avg_updates: TF 2.2+, eager
    outside functions) passes the moving statistics to FusedBatchNormV3 with
    exponential_avg_factor = 1 - momentum = 0.01 and writes its outputs 1 and 2
    back with AssignNewValue / AssignNewValue_1 (AssignVariableOp).
  * the loss is keras.backend.sparse_categorical_crossentropy under the
    loss's scope, on labels expand_1d made [8,1] (Cast to int64, Reshape
    to [-1], logits reshaped to [-1, classes]), then compute_weighted_loss
    (weighted_loss/Mul by 1.0, Sum, num_elements, value = DivNoNan).
  * GradientTape puts each op's gradient under "gradient_tape/<scope the op was
    made in>/" (backprop._gradient_function) and sums gradients of a tensor
    used twice with AddN; the gradient functions are nn_grad.py/math_grad.py/
    array_grad.py's (Conv2D -> ShapeN + Conv2DBackpropInput/Filter,
    FusedBatchNormV3 -> FusedBatchNormGradV3, MaxPool -> MaxPoolGrad, Pad ->
    Slice, Mean -> Reshape + BroadcastTo + truediv, DivNoNan ->
    BroadcastGradientArgs ..., SparseSoftmaxCrossEntropyWithLogits ->
    PreventGradient * ExpandDims). array_ops.shape/rank of a fully known shape
    is a Const (shape_internal with optimize=True).
  * OptimizerV2.apply_gradients under "Adam/": _prepare_local (lr, beta_1,
    beta_2 read through tf.identity, local_step = Cast(iterations + 1), Pow,
    ...), the gradients all-reduced by the default replica context (one
    custom-gradient IdentityN), "Adam/Adam/update_N/ResourceApplyAdam" per
    trainable variable, then group_deps and AssignAddVariableOp(iterations, 1).
  * the metrics: the loss Mean (total += loss * batch, count += batch) and
    SparseCategoricalAccuracy (Squeeze, ArgMax, Equal, Cast, Sum, Size), their
    results div_no_nan(total, count) wrapped in Identity; train_step returns
    {"loss", "accuracy"}, which nest.flatten orders accuracy, loss.
  * automatic control dependencies: a variable's read waits for its last write,
    a write for the reads since; every stateful op is a control input of one
    NoOp that each returned Identity depends on.

train_step_mixed.pbtxt is the same model under the mixed_float16 policy
(layers compute in half: the first layer Casts its input, AutoCastVariable
reads Cast each kernel/bias to half, FusedBatchNormV3 T=half U=float, a last
Activation("linear", dtype="float32") casts the logits back) with
LossScaleOptimizer(Adam(), dynamic=False, initial_scale=128): the loss is
scaled before the gradients and the gradients unscaled after. A dynamic loss
scale (Keras's default) would add tf.cond (StatelessIf with branch functions)
for its finite-gradients check, which FlowLens does not run.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from graphdef_text import (GraphDefWriter, a_b, a_f, a_i, a_ints, a_s, a_shape, a_shapes, a_strs,  # noqa: E402
                           a_tensor, a_type, a_types, out)

BATCH, SIZE, CHANNELS, FILTERS, CLASSES = 8, 16, 3, 8, 10
PRODUCER = 808  # GraphDef version of TF 2.6


def normalized(name):
    return "".join(c if c.isalnum() else "_" for c in name.lower())


class Step:
    def __init__(self, mixed):
        self.mixed = mixed
        self.cd = "half" if mixed else "float"  # layers' compute dtype
        self.g = GraphDefWriter()
        self.args = []          # (arg name, attrs) in index order
        self.capture = {}       # variable -> _Arg name
        self.var_info = {}      # variable -> (dtype, shape)
        self.last_write = {}    # automatic control dependencies, per variable
        self.reads = {}
        self.must_run = []      # stateful ops, for the final NoOp
        self.shape = {}

    # ---- nodes ---------------------------------------------------------------
    def op(self, name, op, inputs, attrs, shape=None, control=(), exact=False):
        n = self.g.add(name, op, inputs, attrs, control, exact)
        if shape is not None:
            self.shape[n] = shape
        return n

    def const(self, name, dtype, dims, values):
        return self.op(name, "Const", [], {"dtype": a_type(dtype), "value": a_tensor(dtype, dims, values)},
                       shape=list(dims))

    def data_arg(self, name, dtype, shape):
        self.args.append((name, {"T": a_type(dtype), "_output_shapes": a_shapes([shape]),
                                 "_user_specified_name": a_s(name)}))
        self.g.reserve(name)
        self.shape[name] = shape
        return name

    def variable(self, var, dtype, shape):
        self.var_info[var] = (dtype, shape)

    def handle(self, var, placeholder):
        """The _Arg of `var`'s handle, captured under `placeholder` on first use."""
        if var not in self.capture:
            name = normalized(placeholder)
            dtype, shape = self.var_info[var]
            self.args.append((name, {"T": a_type("resource"), "_handle_dtypes": a_types([dtype]),
                                     "_handle_shapes": a_shapes([shape]), "_output_shapes": a_shapes([[]])}))
            self.g.reserve(name)
            self.capture[var] = name
        return self.capture[var]

    def stateful(self, var, name, op, inputs, attrs, write, input_arg="resource", shape=None, control=(), exact=False):
        """An op on variable `var` (its handle is input 0), with acd's control edges."""
        deps = list(control)
        if var in self.last_write:
            deps.append(self.last_write[var])
        if write:
            deps += self.reads.get(var, [])
        name = self.g.unique(name) if not exact else name
        h = self.handle(var, name + "/" + input_arg)
        n = self.op(name, op, [h] + list(inputs), attrs, shape=shape, control=deps, exact=True)
        if write:
            self.last_write[var] = n
            self.reads[var] = []
        else:
            self.reads.setdefault(var, []).append(n)
        self.must_run.append(n)
        return n

    def read(self, var, scope):
        dtype, shape = self.var_info[var]
        return self.stateful(var, scope + "/ReadVariableOp", "ReadVariableOp", [], {"dtype": a_type(dtype)},
                             write=False, shape=shape)

    def cast(self, name, x, src, dst, shape):
        return self.op(name, "Cast", [x], {"DstT": a_type(dst), "SrcT": a_type(src), "Truncate": a_b(False)}, shape)

    def read_for_layer(self, var, scope):
        """A layer's read of its weight: AutoCastVariable casts it under mixed_float16."""
        r = self.read(var, scope)
        if self.mixed:
            r = self.cast(scope + "/Cast", r, "float", "half", self.var_info[var][1])
        return r

    # ---- layers --------------------------------------------------------------
    def pad(self, scope, x):
        n, h, w, c = self.shape[x]
        p = self.const(scope + "/Pad/paddings", "int32", [4, 2], [0, 0, 1, 1, 1, 1, 0, 0])
        y = self.op(scope + "/Pad", "Pad", [x, p], {"T": a_type(self.cd), "Tpaddings": a_type("int32")},
                    [n, h + 2, w + 2, c])
        return y, p

    def conv(self, scope, x, filters, stride, padding, bias):
        n, h, w, c = self.shape[x]
        kernel = scope + "/kernel"
        self.variable(kernel, "float", [3, 3, c, filters])
        k = self.read_for_layer(kernel, scope + "/Conv2D")
        if padding == "VALID":
            oh, ow = (h - 3) // stride + 1, (w - 3) // stride + 1
        else:
            oh, ow = -(-h // stride), -(-w // stride)
        y = self.op(scope + "/Conv2D", "Conv2D", [x, k], self.conv_attrs(stride, padding), [n, oh, ow, filters])
        info = {"x": x, "k": k, "conv": y, "kernel": kernel, "scope": scope, "stride": stride, "padding": padding}
        if bias:
            b = scope + "/bias"
            self.variable(b, "float", [filters])
            br = self.read_for_layer(b, scope + "/BiasAdd")
            y = self.op(scope + "/BiasAdd", "BiasAdd", [y, br],
                        {"T": a_type(self.cd), "data_format": a_s("NHWC")}, [n, oh, ow, filters])
            info["bias"] = b
        info["y"] = y
        return y, info

    def conv_attrs(self, stride, padding):
        return {"T": a_type(self.cd), "data_format": a_s("NHWC"), "dilations": a_ints([1, 1, 1, 1]),
                "explicit_paddings": a_ints([]), "padding": a_s(padding),
                "strides": a_ints([1, stride, stride, 1]), "use_cudnn_on_gpu": a_b(True)}

    def batch_norm(self, scope, x):
        shape = self.shape[x]
        c = shape[-1]
        names = {}
        for v in ("gamma", "beta", "moving_mean", "moving_variance"):
            names[v] = scope + "/" + v
            self.variable(names[v], "float", [c])
        gamma = self.read(names["gamma"], scope)
        beta = self.read(names["beta"], scope)
        mean = self.read(names["moving_mean"], scope + "/FusedBatchNormV3")
        var = self.read(names["moving_variance"], scope + "/FusedBatchNormV3")
        bn = self.op(scope + "/FusedBatchNormV3", "FusedBatchNormV3", [x, gamma, beta, mean, var],
                     {"T": a_type(self.cd), "U": a_type("float"), "data_format": a_s("NHWC"),
                      "epsilon": a_f(0.001), "exponential_avg_factor": a_f(1.0 - 0.99),
                      "is_training": a_b(True)}, shape)
        self.stateful(names["moving_mean"], scope + "/AssignNewValue", "AssignVariableOp", [out(bn, 1)],
                      {"dtype": a_type("float")}, write=True)
        self.stateful(names["moving_variance"], scope + "/AssignNewValue_1", "AssignVariableOp", [out(bn, 2)],
                      {"dtype": a_type("float")}, write=True)
        return bn, {"x": x, "bn": bn, "gamma": names["gamma"], "beta": names["beta"], "gamma_read": gamma,
                    "scope": scope}

    def relu(self, scope, x):
        return self.op(scope + "/Relu", "Relu", [x], {"T": a_type(self.cd)}, self.shape[x])

    # ---- the step -------------------------------------------------------------
    def build(self):
        g, cd = self.g, self.cd
        images = self.data_arg("images", "float", [BATCH, SIZE, SIZE, CHANNELS])
        labels = self.data_arg("labels", "int32", [BATCH])
        # train_step: data_adapter.expand_1d makes the labels [8, 1].
        dim = self.const("ExpandDims/dim", "int32", [], [-1])
        y_true = self.op("ExpandDims", "ExpandDims", [labels, dim], {"T": a_type("int32"), "Tdim": a_type("int32")},
                         [BATCH, 1])
        for s in ("model",):
            g.reserve(s)
        x = images
        if self.mixed:  # the first layer casts its float32 input to its compute dtype
            x = self.cast("model/zero_padding2d/Cast", x, "float", "half", self.shape[x])
        x, _ = self.pad("model/zero_padding2d", x)
        x, conv0 = self.conv("model/conv2d", x, FILTERS, 2, "VALID", bias=True)
        x, bn0 = self.batch_norm("model/batch_normalization", x)
        act0 = x = self.relu("model/activation", x)
        x, pad1_paddings = self.pad("model/zero_padding2d_1", x)
        pad1 = x
        n, h, w, c = self.shape[x]
        pool = self.op("model/max_pooling2d/MaxPool", "MaxPool", [x],
                       {"T": a_type(cd), "data_format": a_s("NHWC"), "ksize": a_ints([1, 3, 3, 1]),
                        "padding": a_s("VALID"), "strides": a_ints([1, 2, 2, 1])},
                       [n, (h - 3) // 2 + 1, (w - 3) // 2 + 1, c])
        x, conv1 = self.conv("model/conv2d_1", pool, FILTERS, 1, "SAME", bias=False)
        x, bn1 = self.batch_norm("model/batch_normalization_1", x)
        act1 = x = self.relu("model/activation_1", x)
        x, conv2 = self.conv("model/conv2d_2", x, FILTERS, 1, "SAME", bias=False)
        x, bn2 = self.batch_norm("model/batch_normalization_2", x)
        add = self.op("model/add/add", "AddV2", [x, pool], {"T": a_type(cd)}, self.shape[x])
        act2 = self.relu("model/activation_2", add)
        axes = self.const("model/global_average_pooling2d/Mean/reduction_indices", "int32", [2], [1, 2])
        gap = self.op("model/global_average_pooling2d/Mean", "Mean", [act2, axes],
                      {"T": a_type(cd), "Tidx": a_type("int32"), "keep_dims": a_b(False)}, [BATCH, FILTERS])
        self.variable("model/dense/kernel", "float", [FILTERS, CLASSES])
        self.variable("model/dense/bias", "float", [CLASSES])
        kernel = self.read_for_layer("model/dense/kernel", "model/dense/MatMul")
        logits = self.op("model/dense/MatMul", "MatMul", [gap, kernel],
                         {"T": a_type(cd), "transpose_a": a_b(False), "transpose_b": a_b(False)}, [BATCH, CLASSES])
        bias = self.read_for_layer("model/dense/bias", "model/dense/BiasAdd")
        logits = self.op("model/dense/BiasAdd", "BiasAdd", [logits, bias],
                         {"T": a_type(cd), "data_format": a_s("NHWC")}, [BATCH, CLASSES])
        dense_logits = logits
        if self.mixed:  # Activation("linear", dtype="float32"): its input cast back to float32
            logits = self.cast("model/activation_3/Cast", logits, "half", "float", [BATCH, CLASSES])

        # ---- loss: SparseCategoricalCrossentropy(from_logits=True) ----
        L = "sparse_categorical_crossentropy"
        target = self.cast(L + "/Cast", y_true, "int32", "int64", [BATCH, 1])
        out_shape = self.const(L + "/Shape", "int32", [2], [BATCH, CLASSES])
        flat_shape = self.const(L + "/Reshape/shape", "int32", [1], [-1])
        target = self.op(L + "/Reshape", "Reshape", [target, flat_shape],
                         {"T": a_type("int64"), "Tshape": a_type("int32")}, [BATCH])
        last = self.strided_slice(L + "/strided_slice", out_shape, -1)
        m1 = self.const(L + "/Reshape_1/shape/0", "int32", [], [-1])
        shp = self.op(L + "/Reshape_1/shape", "Pack", [m1, last],
                      {"N": a_i(2), "T": a_type("int32"), "axis": a_i(0)}, [2])
        logits2 = self.op(L + "/Reshape_1", "Reshape", [logits, shp],
                          {"T": a_type("float"), "Tshape": a_type("int32")}, [BATCH, CLASSES])
        S = L + "/SparseSoftmaxCrossEntropyWithLogits"
        self.const(S + "/Shape", "int32", [1], [BATCH])
        xent = self.op(S + "/SparseSoftmaxCrossEntropyWithLogits", "SparseSoftmaxCrossEntropyWithLogits",
                       [logits2, target], {"T": a_type("float"), "Tlabels": a_type("int64")}, [BATCH])
        W = L + "/weighted_loss"
        one = self.const(W + "/Const", "float", [], [1.0])
        wmul = self.op(W + "/Mul", "Mul", [xent, one], {"T": a_type("float")}, [BATCH])
        c1 = self.const(W + "/Const_1", "int32", [1], [0])
        wsum = self.op(W + "/Sum", "Sum", [wmul, c1], self.sum_attrs(), [])
        num = self.op(W + "/num_elements", "Size", [wmul], {"T": a_type("float"), "out_type": a_type("int32")}, [],
                      exact=True)
        numf = self.cast(W + "/num_elements/Cast", num, "int32", "float", [])
        c2 = self.const(W + "/Const_2", "int32", [0], [])
        wsum1 = self.op(W + "/Sum_1", "Sum", [wsum, c2], self.sum_attrs(), [])
        loss = self.op(W + "/value", "DivNoNan", [wsum1, numf], {"T": a_type("float")}, [])

        # ---- the loss metric: Mean(loss, sample_weight=batch size) ----
        yshape = self.const("Shape", "int32", [2], [BATCH, 1])
        batch_dim = self.strided_slice("strided_slice", yshape, 0)
        bw = self.cast("Cast", batch_dim, "int32", "float", [])
        self.variable("loss/total", "float", [])
        self.variable("loss/count", "float", [])
        self.variable("accuracy/total", "float", [])
        self.variable("accuracy/count", "float", [])
        lm = self.op("Mul", "Mul", [loss, bw], {"T": a_type("float")}, [])
        k = self.const("Const", "int32", [0], [])
        ls = self.op("Sum", "Sum", [lm, k], self.sum_attrs(), [])
        add_total = self.stateful("loss/total", "AssignAddVariableOp", "AssignAddVariableOp", [ls],
                                  {"dtype": a_type("float")}, write=True, control=[ls])
        k1 = self.const("Const", "int32", [0], [])
        cs = self.op("Sum_1", "Sum", [bw, k1], self.sum_attrs(), [])
        self.stateful("loss/count", "AssignAddVariableOp_1", "AssignAddVariableOp", [cs],
                      {"dtype": a_type("float")}, write=True, control=[add_total])

        # ---- optimizer.minimize: the scaled loss (mixed), the tape's gradients ----
        target_loss = loss
        if self.mixed:
            scale = self.const("Const", "float", [], [128.0])
            target_loss = self.op("mul", "Mul", [loss, scale], {"T": a_type("float")}, [])
        grads = self.backward(target_loss, loss, locals())
        if self.mixed:
            scale = self.const("Const", "float", [], [128.0])
            onef = self.const("truediv/x", "float", [], [1.0])
            recip = self.op("truediv", "RealDiv", [onef, scale], {"T": a_type("float")}, [])
            grads = [(self.op("mul", "Mul", [gr, recip], {"T": a_type("float")}), v)
                     for i, (gr, v) in enumerate(grads)]
        if self.mixed:
            # LossScaleOptimizer.apply_gradients: aggregate, then (a fixed scale
            # always applies) the inner Adam without aggregating again, grouped
            # with the loss scale's (no-op) update.
            grads = self.all_reduce("IdentityN", grads)
            no_update = self.op("NoOp", "NoOp", [], {})
            self.adam(grads)
            self.op("group_deps", "NoOp", [], {}, control=[self.last_write["Adam/iter"], no_update])
        else:
            self.adam(grads)

        # ---- compiled metrics: SparseCategoricalAccuracy ----
        yt = self.cast("Cast_1", y_true, "int32", "float", [BATCH, 1])
        sq = self.op("Squeeze", "Squeeze", [yt], {"T": a_type("float"), "squeeze_dims": a_ints([-1])}, [BATCH])
        adim = self.const("ArgMax/dimension", "int32", [], [-1])
        am = self.op("ArgMax", "ArgMax", [logits, adim], {"T": a_type("float"), "Tidx": a_type("int32"),
                                                          "output_type": a_type("int64")}, [BATCH])
        amf = self.cast("Cast_2", am, "int64", "float", [BATCH])
        eq = self.op("Equal", "Equal", [sq, amf], {"T": a_type("float"), "incompatible_shape_error": a_b(True)},
                     [BATCH])
        matches = self.cast("Cast_3", eq, "bool", "float", [BATCH])
        k2 = self.const("Const", "int32", [1], [0])
        asum = self.op("Sum_2", "Sum", [matches, k2], self.sum_attrs(), [])
        acc_total = self.stateful("accuracy/total", "AssignAddVariableOp_2", "AssignAddVariableOp", [asum],
                                  {"dtype": a_type("float")}, write=True, control=[asum])
        size = self.op("Size", "Size", [matches], {"T": a_type("float"), "out_type": a_type("int32")}, [])
        sizef = self.cast("Cast_4", size, "int32", "float", [])
        self.stateful("accuracy/count", "AssignAddVariableOp_3", "AssignAddVariableOp", [sizef],
                      {"dtype": a_type("float")}, write=True, control=[acc_total])

        # ---- metric results, returned as {"accuracy", "loss"} ----
        results = []
        for scope, metric in (("div_no_nan", "loss"), ("div_no_nan_1", "accuracy")):
            g.reserve(scope)
            t = self.read(metric + "/total", scope)
            c = self.read(metric + "/count", scope)
            d = self.op(scope, "DivNoNan", [t, c], {"T": a_type("float")}, [], exact=True)
            results.append(self.op("Identity", "Identity", [d], {"T": a_type("float")}, []))
        loss_result, acc_result = results
        noop = self.op("NoOp", "NoOp", [], {}, control=self.must_run)
        self.g.by_name[noop]["attr"]["_acd_function_control_output"] = a_b(True)
        outputs = [self.op("Identity", "Identity", [r], {"T": a_type("float")}, [], control=[noop])
                   for r in (acc_result, loss_result)]
        for i, o in enumerate(outputs):
            self.op(normalized(o) + "_RetVal", "_Retval", [o], {"T": a_type("float"), "index": a_i(i)}, exact=True)

        # The _Arg nodes first, as InstantiateFunction adds them.
        args = []
        for i, (name, attrs) in enumerate(self.args):
            attrs = dict(attrs)
            attrs["index"] = a_i(i)
            args.append({"name": name, "op": "_Arg", "input": [], "attr": attrs})
        self.g.nodes = args + self.g.nodes

    def sum_attrs(self):
        return {"T": a_type("float"), "Tidx": a_type("int32"), "keep_dims": a_b(False)}

    def strided_slice(self, name, x, index):
        name = self.g.unique(name)
        self.g.reserve(name)
        b = self.const(name + "/stack", "int32", [1], [index])
        e = self.const(name + "/stack_1", "int32", [1], [index + 1])
        s = self.const(name + "/stack_2", "int32", [1], [1])
        return self.op(name, "StridedSlice", [x, b, e, s],
                       {"Index": a_type("int32"), "T": a_type("int32"), "begin_mask": a_i(0), "ellipsis_mask": a_i(0),
                        "end_mask": a_i(0), "new_axis_mask": a_i(0), "shrink_axis_mask": a_i(1)}, [], exact=True)

    # ---- GradientTape.gradient(loss, model.trainable_variables) ----------------
    def backward(self, target, loss, f):
        g, cd = self.g, self.cd
        GT = "gradient_tape/"
        grads = {}

        def T(dtype=None):
            return {"T": a_type(dtype or cd)}

        ones = self.const("ones", "float", [], [1.0])
        grad = ones
        if self.mixed:  # mul = loss * scale: Mul's gradient, the scale a scalar needing none
            grad = self.op(GT + "Mul", "Mul", [ones, f["scale"]], T("float"), [])
        # value = DivNoNan(Sum_1, num_elements/Cast)
        W = GT + "sparse_categorical_crossentropy/weighted_loss/"
        sx = self.const(W + "Shape", "int32", [0], [])
        sy = self.const(W + "Shape_1", "int32", [0], [])
        bga = self.op(W + "BroadcastGradientArgs", "BroadcastGradientArgs", [sx, sy], T("int32"))
        d = self.op(W + "div_no_nan", "DivNoNan", [grad, f["numf"]], T("float"), [])
        s = self.op(W + "Sum", "Sum", [d, bga], self.sum_attrs(), [])
        gx = self.op(W + "Reshape", "Reshape", [s, sx], {"T": a_type("float"), "Tshape": a_type("int32")}, [])
        neg = self.op(W + "Neg", "Neg", [f["wsum1"]], T("float"), [])
        d1 = self.op(W + "div_no_nan_1", "DivNoNan", [neg, f["numf"]], T("float"), [])
        d2 = self.op(W + "div_no_nan_2", "DivNoNan", [d1, f["numf"]], T("float"), [])
        m = self.op(W + "mul", "Mul", [grad, d2], T("float"), [])
        s1 = self.op(W + "Sum_1", "Sum", [m, out(bga, 1)], self.sum_attrs(), [])
        self.op(W + "Reshape_1", "Reshape", [s1, sy], {"T": a_type("float"), "Tshape": a_type("int32")}, [])
        # Sum_1 over a scalar: reshape to [] and tile by [].
        rs = self.const(W + "Reshape_2/shape", "int32", [0], [])
        gx = self.op(W + "Reshape_2", "Reshape", [gx, rs], {"T": a_type("float"), "Tshape": a_type("int32")}, [],
                     exact=True)
        c = self.const(W + "Const", "int32", [0], [])
        gx = self.op(W + "Tile", "Tile", [gx, c], {"T": a_type("float"), "Tmultiples": a_type("int32")}, [])
        # Sum over [8]: reshape to [1], tile by [8].
        rs = self.const(W + "Reshape_3/shape", "int32", [1], [1])
        gx = self.op(W + "Reshape_3", "Reshape", [gx, rs], {"T": a_type("float"), "Tshape": a_type("int32")}, [1],
                     exact=True)
        c = self.const(W + "Const_1", "int32", [1], [BATCH])
        gx = self.op(W + "Tile_1", "Tile", [gx, c], {"T": a_type("float"), "Tmultiples": a_type("int32")}, [BATCH])
        # Mul by the weight 1.0 (a scalar that needs no gradient).
        gx = self.op(W + "Mul", "Mul", [gx, f["one"]], T("float"), [BATCH])
        # SparseSoftmaxCrossEntropyWithLogits: grad[:, None] * backprop.
        S = GT + "sparse_categorical_crossentropy/SparseSoftmaxCrossEntropyWithLogits/"
        pg = self.op(S + "PreventGradient", "PreventGradient", [out(f["xent"], 1)],
                     {"T": a_type("float"), "message": a_s(
                         "Currently there is no way to take the second derivative of "
                         "sparse_softmax_cross_entropy_with_logits due to the fused implementation's interaction "
                         "with tf.gradients()")}, [BATCH, CLASSES])
        ed = self.const(S + "ExpandDims/dim", "int32", [], [-1])
        e = self.op(S + "ExpandDims", "ExpandDims", [gx, ed], {"T": a_type("float"), "Tdim": a_type("int32")},
                    [BATCH, 1])
        gx = self.op(S + "mul", "Mul", [e, pg], T("float"), [BATCH, CLASSES])
        # Reshape_1 of the logits.
        L = GT + "sparse_categorical_crossentropy/"
        sh = self.const(L + "Shape", "int32", [2], [BATCH, CLASSES])
        gx = self.op(L + "Reshape", "Reshape", [gx, sh], {"T": a_type("float"), "Tshape": a_type("int32")},
                     [BATCH, CLASSES])
        if self.mixed:  # activation_3's Cast half -> float
            gx = self.op(GT + "model/activation_3/Cast", "Cast", [gx],
                         {"DstT": a_type("half"), "SrcT": a_type("float"), "Truncate": a_b(False)}, [BATCH, CLASSES])
        D = GT + "model/dense/"
        gb = self.op(D + "BiasAddGrad", "BiasAddGrad", [gx], {"T": a_type(cd), "data_format": a_s("NHWC")}, [CLASSES])
        ggap = self.op(D + "MatMul", "MatMul", [gx, f["kernel"]],
                       {"T": a_type(cd), "transpose_a": a_b(False), "transpose_b": a_b(True)}, [BATCH, FILTERS])
        gk = self.op(D + "MatMul_1", "MatMul", [f["gap"], gx],
                     {"T": a_type(cd), "transpose_a": a_b(True), "transpose_b": a_b(False)}, [FILTERS, CLASSES])
        grads["model/dense/bias"] = self.var_grad("model/dense/bias", gb, "model/dense/BiasAdd", [CLASSES])
        grads["model/dense/kernel"] = self.var_grad("model/dense/kernel", gk, "model/dense/MatMul", [FILTERS, CLASSES])
        # Mean over [1, 2]: reshape to [8,1,1,8], broadcast to [8,4,4,8], divide by 16.
        P = GT + "model/global_average_pooling2d/"
        in_shape = self.shape[f["act2"]]
        sh = self.const(P + "Shape", "int32", [4], in_shape)
        rs = self.const(P + "Reshape/shape", "int32", [4], [BATCH, 1, 1, FILTERS])
        r = self.op(P + "Reshape", "Reshape", [ggap, rs], {"T": a_type(cd), "Tshape": a_type("int32")})
        bt = self.op(P + "BroadcastTo", "BroadcastTo", [r, sh], {"T": a_type(cd), "Tidx": a_type("int32")})
        fx = self.const(P + "Cast/x", "int64", [], [in_shape[1] * in_shape[2]])
        fc = self.op(P + "Cast", "Cast", [fx], {"DstT": a_type(cd), "SrcT": a_type("int64"), "Truncate": a_b(False)},
                     exact=True)
        gx = self.op(P + "truediv", "RealDiv", [bt, fc], T())
        gx = self.op(GT + "model/activation_2/ReluGrad", "ReluGrad", [gx, f["act2"]], T())
        # add: AddV2 of equal, fully known shapes passes the gradient to both.
        g_pool_shortcut = gx
        gx = self.bn_grad(f["bn2"], gx, grads)
        gx = self.conv_grad(f["conv2"], gx, grads)
        gx = self.op(GT + "model/activation_1/ReluGrad", "ReluGrad", [gx, f["act1"]], T())
        gx = self.bn_grad(f["bn1"], gx, grads)
        gx = self.conv_grad(f["conv1"], gx, grads)
        gx = self.op("AddN", "AddN", [g_pool_shortcut, gx], {"N": a_i(2), "T": a_type(cd)})
        gx = self.op(GT + "model/max_pooling2d/MaxPoolGrad", "MaxPoolGrad", [f["pad1"], f["pool"], gx],
                     {"T": a_type(cd), "data_format": a_s("NHWC"), "ksize": a_ints([1, 3, 3, 1]),
                      "padding": a_s("VALID"), "strides": a_ints([1, 2, 2, 1])})
        # Pad: slice the unpadded part back out.
        Z = GT + "model/zero_padding2d_1/"
        rank = self.const(Z + "Rank", "int32", [], [4])
        s1 = self.const(Z + "stack/1", "int32", [], [1])
        st = self.op(Z + "stack", "Pack", [rank, s1], {"N": a_i(2), "T": a_type("int32"), "axis": a_i(0)},
                     exact=True)
        sb = self.const(Z + "Slice/begin", "int32", [2], [0, 0])
        before = self.op(Z + "Slice", "Slice", [f["pad1_paddings"], sb, st],
                         {"Index": a_type("int32"), "T": a_type("int32")}, exact=True)
        rs = self.const(Z + "Reshape/shape", "int32", [1], [-1])
        begin = self.op(Z + "Reshape", "Reshape", [before, rs], {"T": a_type("int32"), "Tshape": a_type("int32")})
        size = self.const(Z + "Shape", "int32", [4], self.shape[f["act0"]])
        gx = self.op(Z + "Slice_1", "Slice", [gx, begin, size], {"Index": a_type("int32"), "T": a_type(cd)})
        gx = self.op(GT + "model/activation/ReluGrad", "ReluGrad", [gx, f["act0"]], T())
        gx = self.bn_grad(f["bn0"], gx, grads)
        gx = self.conv_grad(f["conv0"], gx, grads)
        order = ["model/conv2d/kernel", "model/conv2d/bias", "model/batch_normalization/gamma",
                 "model/batch_normalization/beta", "model/conv2d_1/kernel", "model/batch_normalization_1/gamma",
                 "model/batch_normalization_1/beta", "model/conv2d_2/kernel", "model/batch_normalization_2/gamma",
                 "model/batch_normalization_2/beta", "model/dense/kernel", "model/dense/bias"]
        return [(grads[v], v) for v in order]

    def var_grad(self, var, grad, scope, shape):
        """The gradient reaching a variable's read: through AutoCastVariable's Cast under mixed precision."""
        if self.mixed:
            grad = self.op("gradient_tape/" + scope + "/Cast", "Cast", [grad],
                           {"DstT": a_type("float"), "SrcT": a_type("half"), "Truncate": a_b(False)}, shape)
        return grad

    def bn_grad(self, info, gx, grads):
        bn = info["bn"]
        scope = "gradient_tape/" + info["scope"] + "/"
        c = self.shape[bn][-1]
        fbg = self.op(scope + "FusedBatchNormGradV3", "FusedBatchNormGradV3",
                      [gx, info["x"], info["gamma_read"], out(bn, 3), out(bn, 4), out(bn, 5)],
                      {"T": a_type(self.cd), "U": a_type("float"), "data_format": a_s("NHWC"),
                       "epsilon": a_f(0.001), "is_training": a_b(True)}, self.shape[bn])
        grads[info["gamma"]] = out(fbg, 1)
        grads[info["beta"]] = out(fbg, 2)
        return fbg

    def conv_grad(self, info, gx, grads):
        scope = "gradient_tape/" + info["scope"] + "/"
        if "bias" in info:
            b = self.op(scope + "BiasAddGrad", "BiasAddGrad", [gx], {"T": a_type(self.cd), "data_format": a_s("NHWC")},
                        [self.shape[info["y"]][-1]])
            grads[info["bias"]] = self.var_grad(info["bias"], b, info["scope"] + "/BiasAdd",
                                                [self.shape[info["y"]][-1]])
        sn = self.op(scope + "ShapeN", "ShapeN", [info["x"], info["k"]],
                     {"N": a_i(2), "T": a_type(self.cd), "out_type": a_type("int32")})
        attrs = self.conv_attrs(info["stride"], info["padding"])
        dx = self.op(scope + "Conv2DBackpropInput", "Conv2DBackpropInput", [sn, info["k"], gx], attrs,
                     self.shape[info["x"]])
        dk = self.op(scope + "Conv2DBackpropFilter", "Conv2DBackpropFilter", [info["x"], out(sn, 1), gx], attrs)
        grads[info["kernel"]] = self.var_grad(info["kernel"], dk, info["scope"] + "/Conv2D",
                                              self.var_info[info["kernel"]][1])
        return dx

    def all_reduce(self, name, grads_and_vars):
        """The default replica context's all-reduce of the gradients: one custom-gradient IdentityN."""
        gs = [gr for gr, _ in grads_and_vars]
        idn = self.op(name, "IdentityN", gs + gs,
                      {"T": a_types(["float"] * (2 * len(gs))), "_gradient_op_type": a_s("CustomGradient-4321")})
        return [(out(idn, i), v) for i, (_, v) in enumerate(grads_and_vars)]

    # ---- Adam.apply_gradients ----------------------------------------------------
    def adam(self, grads_and_vars):
        A = "Adam"
        self.g.reserve(A)
        for v, shape, dtype in (("Adam/learning_rate", [], "float"), ("Adam/iter", [], "int64"),
                                ("Adam/beta_1", [], "float"), ("Adam/beta_2", [], "float")):
            self.variable(v, dtype, shape)
        self.g.reserve(A + "/Identity")
        lr = self.op(A + "/Identity", "Identity", [self.read("Adam/learning_rate", A + "/Identity")], {"T": a_type("float")},
                     [], exact=True)
        it = self.read("Adam/iter", A)
        one = self.const(A + "/add/y", "int64", [], [1])
        self.g.reserve(A + "/add")
        step = self.op(A + "/add", "AddV2", [it, one], {"T": a_type("int64")}, [], exact=True)
        step = self.cast(A + "/Cast", step, "int64", "float", [])
        self.g.reserve(A + "/Identity_1")
        b1 = self.op(A + "/Identity_1", "Identity", [self.read("Adam/beta_1", A + "/Identity_1")],
                     {"T": a_type("float")}, [], exact=True)
        self.g.reserve(A + "/Identity_2")
        b2 = self.op(A + "/Identity_2", "Identity", [self.read("Adam/beta_2", A + "/Identity_2")],
                     {"T": a_type("float")}, [], exact=True)
        F = {"T": a_type("float")}
        p1 = self.op(A + "/Pow", "Pow", [b1, step], F, [])
        p2 = self.op(A + "/Pow_1", "Pow", [b2, step], F, [])

        def rsub(name, y):
            self.g.reserve(A + "/" + name)
            x = self.const(A + "/" + name + "/x", "float", [], [1.0])
            return self.op(A + "/" + name, "Sub", [x, y], F, [], exact=True)

        s = rsub("sub", p2)
        sq = self.op(A + "/Sqrt", "Sqrt", [s], F, [])
        s1 = rsub("sub_1", p1)
        td = self.op(A + "/truediv", "RealDiv", [sq, s1], F, [])
        self.op(A + "/mul", "Mul", [lr, td], F, [])
        eps = self.const(A + "/Const", "float", [], [1e-07])
        rsub("sub_2", b1)
        rsub("sub_3", b2)
        if not self.mixed:
            grads_and_vars = self.all_reduce(A + "/IdentityN", grads_and_vars)
        updates = []
        self.g.reserve(A + "/Adam")
        for i, (_, var) in enumerate(grads_and_vars):
            scope = A + "/Adam/update" + ("" if i == 0 else "_%d" % i)
            self.g.reserve(scope)
            dtype, shape = self.var_info[var]
            for slot in ("m", "v"):
                self.variable(var + "/" + slot, dtype, shape)
            name = scope + "/ResourceApplyAdam"
            self.g.reserve(name)
            deps = [self.last_write[var]] if var in self.last_write else []
            deps += self.reads.get(var, [])
            m = self.handle(var + "/m", name + "/m")
            v = self.handle(var + "/v", name + "/v")
            n = self.op(name, "ResourceApplyAdam",
                        [self.capture[var], m, v, p1, p2, lr, b1, b2, eps, grads_and_vars[i][0]],
                        {"T": a_type(dtype), "use_locking": a_b(True), "use_nesterov": a_b(False)},
                        control=deps, exact=True)
            self.last_write[var] = n
            self.reads[var] = []
            for slot in ("m", "v"):
                self.last_write[var + "/" + slot] = n
            self.must_run.append(n)
            updates.append(n)
        group = self.op(A + "/Adam/group_deps", "NoOp", [], {}, control=updates)
        c = self.const(A + "/Adam/Const", "int64", [], [1])
        self.stateful("Adam/iter", A + "/Adam/AssignAddVariableOp", "AssignAddVariableOp", [c],
                      {"dtype": a_type("int64")}, write=True, control=[group])


HEADER = """A Keras training step (model.train_step of a small ResNet-style CNN with Adam)
as TensorFlow 2.x instantiates it from a tf.function: written by make_train_step.py
beside this file; see its docstring for the model and where each name comes from.
Regenerate with: python3 tests/data/keras_cnn_step/make_train_step.py"""


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    for mixed, name in ((False, "train_step.pbtxt"), (True, "train_step_mixed.pbtxt")):
        step = Step(mixed)
        step.build()
        header = HEADER + ("\nThis one under the mixed_float16 policy with a fixed loss scale of 128." if mixed else "")
        with open(os.path.join(here, name), "w") as f:
            f.write(step.g.text(PRODUCER, header))


if __name__ == "__main__":
    main()
