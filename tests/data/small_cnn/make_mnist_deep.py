#!/usr/bin/env python3
"""Writes mnist_deep.pbtxt: the graph of TensorFlow's classic
tensorflow/examples/tutorials/mnist/mnist_deep.py as TensorFlow 1.12 writes it
(tf.summary.FileWriter.add_graph, right after the model, loss, train op and
accuracy are built; the tutorial's tf.global_variables_initializer() comes
later and is not in it).

Standard library only; run it from anywhere:  python3 make_mnist_deep.py
We hold no real export of it, so this script writes, op by op, what the
tutorial's code makes through TF 1.12's Python:

  x = tf.placeholder(tf.float32, [None, 784])          -> Placeholder
  y_ = tf.placeholder(tf.float32, [None, 10])          -> Placeholder_1 (one-hot)
  reshape/Reshape to [-1, 28, 28, 1]
  conv1, conv2: weight_variable = tf.Variable(tf.truncated_normal(shape, stddev=0.1))
                (truncated_normal/{shape,mean,stddev,TruncatedNormal,mul}, truncated_normal,
                 Variable = VariableV2, Variable/Assign, Variable/read),
                bias_variable = tf.Variable(tf.constant(0.1, shape)) (Const, Variable_1),
                Conv2D 5x5 SAME, Add, Relu; pool1/pool2 MaxPool 2x2 SAME
  fc1: Reshape to [-1, 3136], MatMul, Add, Relu
  dropout: keep_prob = tf.placeholder(tf.float32) (dropout/Placeholder), tf.nn.dropout
           as TF <= 1.12 writes it: dropout/dropout/{Shape, random_uniform/*, add, Floor,
           div (RealDiv), mul}
  fc2: MatMul, Add -> y_conv
  loss: tf.nn.softmax_cross_entropy_with_logits(labels=y_, logits=y_conv), the
        deprecated v1 of TF 1.5+: labels_stop_gradient (StopGradient), then v2's
        _flatten_outer_dims (Rank, Shape, Sub, Slice, ConcatV2, Reshape) around the
        SoftmaxCrossEntropyWithLogits op (named after the scope,
        loss/softmax_cross_entropy_with_logits_sg), cost reshaped back; Mean
  adam_optimizer: tf.train.AdamOptimizer(1e-4).minimize(cross_entropy):
        tf.gradients under adam_optimizer/gradients (gradients/Shape, grad_ys_0,
        Fill, one <op>_grad scope per op, gate_gradients=GATE_OP's
        tuple/group_deps + tuple/control_dependency Identities where an op has
        two input gradients, zeros_like for the unused backprop output);
        slots conv1/Variable/Adam (m) and Adam_1 (v) with Initializer/zeros
        (Const below 1000 elements, else Fill), adam_optimizer/beta1_power and
        beta2_power (VariableV2), Adam/{learning_rate,beta1,beta2,epsilon},
        ApplyAdam per variable (adam_optimizer/Adam/update_<var>/ApplyAdam),
        the beta powers' Mul + Assign, and the train op: the NoOp
        adam_optimizer/Adam
  accuracy: ArgMax of both, Equal, Cast; Mean_1

Op names follow TensorFlow's uniquing; attrs are TF 1.12's (Conv2D has
dilations but not yet explicit_paddings, Equal no incompatible_shape_error).
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from graphdef_text import (GraphDefWriter, a_b, a_i, a_ints, a_s, a_shape, a_strs, a_tensor,  # noqa: E402
                           a_type, out)

PRODUCER = 27  # GraphDef version of TF 1.12


class MnistDeep:
    def __init__(self):
        self.g = GraphDefWriter()
        self.shape = {}

    def op(self, name, op, inputs, attrs, shape=None, control=(), exact=False):
        n = self.g.add(name, op, inputs, attrs, control, exact)
        if shape is not None:
            self.shape[n] = shape
        return n

    def const(self, name, dtype, dims, values, colocate=None):
        attrs = {"dtype": a_type(dtype), "value": a_tensor(dtype, dims, values)}
        if colocate:
            attrs["_class"] = a_strs(["loc:@" + colocate])
        return self.op(name, "Const", [], attrs, list(dims))

    def F(self, **extra):
        d = {"T": a_type("float")}
        d.update(extra)
        return d

    def shape_of(self, scope, x, name="Shape"):
        """array_ops.shape: a Const when the static shape is fully known, else a Shape op."""
        s = self.shape.get(x)
        if s is not None and all(d >= 0 for d in s):
            return self.const(scope + name, "int32", [len(s)], s)
        return self.op(scope + name, "Shape", [x], {"T": a_type("float"), "out_type": a_type("int32")},
                       [len(s)] if s is not None else None)

    # ---- tf.Variable ---------------------------------------------------------
    def variable(self, name, shape, initial):
        v = self.op(name, "VariableV2", [], {"container": a_s(""), "dtype": a_type("float"),
                                             "shape": a_shape(shape), "shared_name": a_s("")}, shape, exact=True)
        loc = {"_class": a_strs(["loc:@" + v])}
        self.op(v + "/Assign", "Assign", [v, initial],
                dict(self.F(), use_locking=a_b(True), validate_shape=a_b(True), **loc), shape, exact=True)
        read = self.op(v + "/read", "Identity", [v], dict(self.F(), **loc), shape, exact=True)
        return v, read

    def weight_variable(self, scope, shape):
        t = scope + "/truncated_normal"
        self.g.reserve(t)
        s = self.const(t + "/shape", "int32", [len(shape)], shape)
        mean = self.const(t + "/mean", "float", [], [0.0])
        std = self.const(t + "/stddev", "float", [], [0.1])
        tn = self.op(t + "/TruncatedNormal", "TruncatedNormal", [s],
                     {"T": a_type("int32"), "dtype": a_type("float"), "seed": a_i(0), "seed2": a_i(0)}, shape)
        m = self.op(t + "/mul", "Mul", [tn, std], self.F(), shape)
        init = self.op(t, "Add", [m, mean], self.F(), shape, exact=True)
        return self.variable(self.g.unique(scope + "/Variable"), shape, init)

    def bias_variable(self, scope, shape):
        c = self.const(scope + "/Const", "float", shape, [0.1])
        return self.variable(self.g.unique(scope + "/Variable"), shape, c)

    # ---- the model -------------------------------------------------------------
    def build(self):
        g, F = self.g, self.F
        x = self.op("Placeholder", "Placeholder", [], {"dtype": a_type("float"), "shape": a_shape([-1, 784])},
                    [-1, 784])
        y_ = self.op("Placeholder", "Placeholder", [], {"dtype": a_type("float"), "shape": a_shape([-1, 10])},
                     [-1, 10])
        rs = self.const("reshape/Reshape/shape", "int32", [4], [-1, 28, 28, 1])
        x_image = self.op("reshape/Reshape", "Reshape", [x, rs], F(Tshape=a_type("int32")), [-1, 28, 28, 1])
        self.vars = []
        layers = {}

        def conv_layer(scope, x, shape):
            w, wr = self.weight_variable(scope, shape)
            b, br = self.bias_variable(scope, [shape[-1]])
            self.vars += [w, b]
            n, h, wd, _ = self.shape[x]
            conv = self.op(scope + "/Conv2D", "Conv2D", [x, wr], self.conv_attrs(), [n, h, wd, shape[-1]])
            add = self.op(scope + "/add", "Add", [conv, br], F(), self.shape[conv])
            relu = self.op(scope + "/Relu", "Relu", [add], F(), self.shape[conv])
            layers[scope] = dict(x=x, w=w, wr=wr, b=b, br=br, conv=conv, add=add, relu=relu)
            return relu

        def pool(scope, x):
            n, h, w, c = self.shape[x]
            p = self.op(scope + "/MaxPool", "MaxPool", [x], self.pool_attrs(), [n, h // 2, w // 2, c])
            layers[scope] = dict(x=x, y=p)
            return p

        h = conv_layer("conv1", x_image, [5, 5, 1, 32])
        h = pool("pool1", h)
        h = conv_layer("conv2", h, [5, 5, 32, 64])
        h = pool("pool2", h)
        w, wr = self.weight_variable("fc1", [3136, 1024])
        b, br = self.bias_variable("fc1", [1024])
        self.vars += [w, b]
        fs = self.const("fc1/Reshape/shape", "int32", [2], [-1, 3136])
        flat = self.op("fc1/Reshape", "Reshape", [h, fs], F(Tshape=a_type("int32")), [-1, 3136])
        mm = self.op("fc1/MatMul", "MatMul", [flat, wr], F(transpose_a=a_b(False), transpose_b=a_b(False)),
                     [-1, 1024])
        add = self.op("fc1/add", "Add", [mm, br], F(), [-1, 1024])
        fc1 = self.op("fc1/Relu", "Relu", [add], F(), [-1, 1024])
        layers["fc1"] = dict(x=flat, w=w, wr=wr, b=b, br=br, mm=mm, add=add, relu=fc1)
        # dropout (TF <= 1.12's tf.nn.dropout)
        keep_prob = self.op("dropout/Placeholder", "Placeholder", [],
                            {"dtype": a_type("float"), "shape": a_shape(None)})
        D = "dropout/dropout/"
        g.reserve("dropout/dropout")
        noise = self.shape_of(D, fc1)
        R = D + "random_uniform/"
        g.reserve(D + "random_uniform")
        lo = self.const(R + "min", "float", [], [0.0])
        hi = self.const(R + "max", "float", [], [1.0])
        ru = self.op(R + "RandomUniform", "RandomUniform", [noise],
                     {"T": a_type("int32"), "dtype": a_type("float"), "seed": a_i(0), "seed2": a_i(0)}, [-1, 1024])
        sub = self.op(R + "sub", "Sub", [hi, lo], F(), [])
        mul = self.op(R + "mul", "Mul", [ru, sub], F(), [-1, 1024])
        ru = self.op(D + "random_uniform", "Add", [mul, lo], F(), [-1, 1024], exact=True)
        rt = self.op(D + "add", "Add", [keep_prob, ru], F(), [-1, 1024])
        floor = self.op(D + "Floor", "Floor", [rt], F(), [-1, 1024])
        div = self.op(D + "div", "RealDiv", [fc1, keep_prob], F(), [-1, 1024])
        drop = self.op(D + "mul", "Mul", [div, floor], F(), [-1, 1024])
        layers["dropout"] = dict(div=div, floor=floor, fc1=fc1, keep_prob=keep_prob, drop=drop)
        w, wr = self.weight_variable("fc2", [1024, 10])
        b, br = self.bias_variable("fc2", [10])
        self.vars += [w, b]
        mm = self.op("fc2/MatMul", "MatMul", [drop, wr], F(transpose_a=a_b(False), transpose_b=a_b(False)), [-1, 10])
        logits = self.op("fc2/add", "Add", [mm, br], F(), [-1, 10])
        layers["fc2"] = dict(x=drop, w=w, wr=wr, b=b, br=br, mm=mm, add=logits)

        # loss: the deprecated tf.nn.softmax_cross_entropy_with_logits (v1) of TF 1.5-1.15
        S = "loss/softmax_cross_entropy_with_logits_sg"
        g.reserve("loss")
        g.reserve(S)
        labels = self.op(S + "/labels_stop_gradient", "StopGradient", [y_], F(), [-1, 10])
        S += "/"
        self.const(S + "Rank", "int32", [], [2])
        flat_logits = self.flatten_outer_dims(S, logits, "")
        flat_labels = self.flatten_outer_dims(S, labels, "_1")
        xent = self.op(S[:-1], "SoftmaxCrossEntropyWithLogits", [flat_logits, flat_labels], F(), [-1], exact=True)
        sh = self.shape_of(S, logits, "Shape_2")
        one = self.const(S + "Sub_2/y", "int32", [], [1])
        sub2 = self.op(S + "Sub_2", "Sub", [S + "Rank", one], {"T": a_type("int32")}, [], exact=True)
        g.reserve(S + "Slice_2")
        begin = self.const(S + "Slice_2/begin", "int32", [1], [0])
        size = self.op(S + "Slice_2/size", "Pack", [sub2], {"N": a_i(1), "T": a_type("int32"), "axis": a_i(0)}, [1],
                       exact=True)
        osh = self.op(S + "Slice_2", "Slice", [sh, begin, size], {"Index": a_type("int32"), "T": a_type("int32")},
                      [1], exact=True)
        cost = self.op(S + "Reshape_2", "Reshape", [xent, osh], F(Tshape=a_type("int32")), [-1])
        axes = self.const("Const", "int32", [1], [0])
        loss = self.op("Mean", "Mean", [cost, axes], F(Tidx=a_type("int32"), keep_dims=a_b(False)), [])
        self.loss = loss
        ctx = dict(layers=layers, xent=xent, cost=cost, flat_logits=flat_logits, logits=logits)

        # adam_optimizer: minimize = compute_gradients + apply_gradients
        g.reserve("adam_optimizer")
        grads = self.gradients(ctx)
        self.adam(grads)

        # accuracy
        g.reserve("accuracy")
        d = self.const("accuracy/ArgMax/dimension", "int32", [], [1])
        a1 = self.op("accuracy/ArgMax", "ArgMax", [logits, d],
                     F(Tidx=a_type("int32"), output_type=a_type("int64")), [-1])
        d = self.const("accuracy/ArgMax_1/dimension", "int32", [], [1])
        a2 = self.op("accuracy/ArgMax_1", "ArgMax", [y_, d],
                     F(Tidx=a_type("int32"), output_type=a_type("int64")), [-1])
        eq = self.op("accuracy/Equal", "Equal", [a1, a2], {"T": a_type("int64")}, [-1])
        c = self.op("accuracy/Cast", "Cast", [eq], {"DstT": a_type("float"), "SrcT": a_type("bool"),
                                                    "Truncate": a_b(False)}, [-1])
        axes = self.const("Const", "int32", [1], [0])
        self.op("Mean", "Mean", [c, axes], F(Tidx=a_type("int32"), keep_dims=a_b(False)), [])

    def conv_attrs(self):
        return self.F(data_format=a_s("NHWC"), dilations=a_ints([1, 1, 1, 1]), padding=a_s("SAME"),
                      strides=a_ints([1, 1, 1, 1]), use_cudnn_on_gpu=a_b(True))

    def pool_attrs(self):
        return self.F(data_format=a_s("NHWC"), ksize=a_ints([1, 2, 2, 1]), padding=a_s("SAME"),
                      strides=a_ints([1, 2, 2, 1]))

    def flatten_outer_dims(self, S, x, k):
        g = self.g
        self.const(S + "Rank_" + ("1" if k == "" else "2"), "int32", [], [2])
        rank = S + "Rank_" + ("1" if k == "" else "2")
        sh = self.shape_of(S, x)
        one = self.const(S + "Sub" + k + "/y", "int32", [], [1])
        g.reserve(S + "Sub" + k)
        sub = self.op(S + "Sub" + k, "Sub", [rank, one], {"T": a_type("int32")}, [], exact=True)
        g.reserve(S + "Slice" + k)
        begin = self.op(S + "Slice" + k + "/begin", "Pack", [sub], {"N": a_i(1), "T": a_type("int32"),
                                                                     "axis": a_i(0)}, [1], exact=True)
        size = self.const(S + "Slice" + k + "/size", "int32", [1], [1])
        last = self.op(S + "Slice" + k, "Slice", [sh, begin, size], {"Index": a_type("int32"), "T": a_type("int32")},
                       [1], exact=True)
        g.reserve(S + "concat" + k)
        v0 = self.const(S + "concat" + k + "/values_0", "int32", [1], [-1])
        ax = self.const(S + "concat" + k + "/axis", "int32", [], [0])
        cat = self.op(S + "concat" + k, "ConcatV2", [v0, last, ax],
                      {"N": a_i(2), "T": a_type("int32"), "Tidx": a_type("int32")}, [2], exact=True)
        return self.op(S + "Reshape" + ("" if k == "" else "_1"), "Reshape", [x, cat],
                       self.F(Tshape=a_type("int32")), [-1, 10])

    # ---- tf.gradients (TF 1.12, gate_gradients=GATE_OP) ------------------------
    def tuple_(self, scope, grads):
        """control_flow_ops.tuple: the gradients gated on each other."""
        gs = scope + "tuple/"
        self.g.reserve(scope + "tuple")
        gate = self.op(gs + "group_deps", "NoOp", [], {}, control=grads)
        outs = []
        for i, t in enumerate(grads):
            producer = t.split(":")[0]
            outs.append(self.op(gs + "control_dependency" + ("" if i == 0 else "_%d" % i), "Identity", [t],
                                self.F(_class=a_strs(["loc:@" + producer])), self.shape.get(t), control=[gate],
                                exact=True))
        return outs

    def broadcast_grad(self, scope, x, y, gx, gy):
        """_AddGrad / _MulGrad's general path: BroadcastGradientArgs, Sum, Reshape."""
        sx = self.shape_of(scope, x)
        sy = self.shape_of(scope, y, "Shape_1")
        bga = self.op(scope + "BroadcastGradientArgs", "BroadcastGradientArgs", [sx, sy], {"T": a_type("int32")})
        return sx, sy, bga

    def add_grad(self, name, x, y, grad):
        sc = "adam_optimizer/gradients/" + name + "_grad/"
        self.g.reserve(sc[:-1])
        sx, sy, bga = self.broadcast_grad(sc, x, y, grad, grad)
        s = self.op(sc + "Sum", "Sum", [grad, bga], self.F(Tidx=a_type("int32"), keep_dims=a_b(False)))
        rx = self.op(sc + "Reshape", "Reshape", [s, sx], self.F(Tshape=a_type("int32")), self.shape[x])
        s1 = self.op(sc + "Sum_1", "Sum", [grad, out(bga, 1)], self.F(Tidx=a_type("int32"), keep_dims=a_b(False)))
        ry = self.op(sc + "Reshape_1", "Reshape", [s1, sy], self.F(Tshape=a_type("int32")), self.shape[y])
        return self.tuple_(sc, [rx, ry])

    def matmul_grad(self, name, a, b, grad):
        sc = "adam_optimizer/gradients/" + name + "_grad/"
        self.g.reserve(sc[:-1])
        ga = self.op(sc + "MatMul", "MatMul", [grad, b], self.F(transpose_a=a_b(False), transpose_b=a_b(True)),
                     self.shape[a])
        gb = self.op(sc + "MatMul_1", "MatMul", [a, grad], self.F(transpose_a=a_b(True), transpose_b=a_b(False)),
                     self.shape[b])
        return self.tuple_(sc, [ga, gb])

    def reshape_grad(self, name, x, grad):
        sc = "adam_optimizer/gradients/" + name + "_grad/"
        self.g.reserve(sc[:-1])
        s = self.shape_of(sc, x)
        return self.op(sc + "Reshape", "Reshape", [grad, s], self.F(Tshape=a_type("int32")), self.shape[x])

    def conv_grad(self, name, L, grad):
        sc = "adam_optimizer/gradients/" + name + "_grad/"
        self.g.reserve(sc[:-1])
        sn = self.op(sc + "ShapeN", "ShapeN", [L["x"], L["wr"]], self.F(N=a_i(2), out_type=a_type("int32")))
        attrs = self.conv_attrs()
        dx = self.op(sc + "Conv2DBackpropInput", "Conv2DBackpropInput", [sn, L["wr"], grad], attrs,
                     self.shape[L["x"]])
        dw = self.op(sc + "Conv2DBackpropFilter", "Conv2DBackpropFilter", [L["x"], out(sn, 1), grad], attrs,
                     self.shape[L["wr"]])
        return self.tuple_(sc, [dx, dw])

    def gradients(self, ctx):
        g, F = self.g, self.F
        G = "adam_optimizer/gradients/"
        g.reserve("adam_optimizer/gradients")
        L = ctx["layers"]
        grads = {}
        shape = self.const(G + "Shape", "int32", [0], [])
        one = self.const(G + "grad_ys_0", "float", [], [1.0])
        grad = self.op(G + "Fill", "Fill", [shape, one], F(index_type=a_type("int32")), [])
        # Mean over [?]: reshape to [1], tile by Shape; divide by Prod(Shape) // max(Prod(Shape of output), 1)
        M = G + "Mean_grad/"
        g.reserve(M[:-1])
        rs = self.const(M + "Reshape/shape", "int32", [1], [1])
        r = self.op(M + "Reshape", "Reshape", [grad, rs], F(Tshape=a_type("int32")), [1])
        sh = self.shape_of(M, ctx["cost"])
        t = self.op(M + "Tile", "Tile", [r, sh], F(Tmultiples=a_type("int32")), [-1])
        sh1 = self.shape_of(M, ctx["cost"], "Shape_1")
        sh2 = self.const(M + "Shape_2", "int32", [0], [])
        c = self.const(M + "Const", "int32", [1], [0])
        prod = self.op(M + "Prod", "Prod", [sh1, c], {"T": a_type("int32"), "Tidx": a_type("int32"),
                                                      "keep_dims": a_b(False)}, [])
        c1 = self.const(M + "Const_1", "int32", [1], [0])
        prod1 = self.op(M + "Prod_1", "Prod", [sh2, c1], {"T": a_type("int32"), "Tidx": a_type("int32"),
                                                          "keep_dims": a_b(False)}, [])
        g.reserve(M + "Maximum")
        my = self.const(M + "Maximum/y", "int32", [], [1])
        mx = self.op(M + "Maximum", "Maximum", [prod1, my], {"T": a_type("int32")}, [], exact=True)
        fd = self.op(M + "floordiv", "FloorDiv", [prod, mx], {"T": a_type("int32")}, [])
        cast = self.op(M + "Cast", "Cast", [fd], {"DstT": a_type("float"), "SrcT": a_type("int32"),
                                                  "Truncate": a_b(False)}, [])
        grad = self.op(M + "truediv", "RealDiv", [t, cast], F(), [-1])
        S = "loss/softmax_cross_entropy_with_logits_sg"
        grad = self.reshape_grad(S + "/Reshape_2", ctx["xent"], grad)
        # SoftmaxCrossEntropyWithLogits: its unused backprop output gets zeros_like first.
        zeros = self.op(G + "zeros_like", "ZerosLike", [out(ctx["xent"], 1)], F(), [-1, 10])
        X = G + S + "_grad/"
        g.reserve(X[:-1])
        d = self.const(X + "ExpandDims/dim", "int32", [], [-1])
        e = self.op(X + "ExpandDims", "ExpandDims", [grad, d], F(Tdim=a_type("int32")), [-1, 1])
        gl = self.op(X + "mul", "Mul", [e, out(ctx["xent"], 1)], F(), [-1, 10])
        ls = self.op(X + "LogSoftmax", "LogSoftmax", [ctx["flat_logits"]], F(), [-1, 10])
        neg = self.op(X + "Neg", "Neg", [ls], F(), [-1, 10])
        d = self.const(X + "ExpandDims_1/dim", "int32", [], [-1])
        e1 = self.op(X + "ExpandDims_1", "ExpandDims", [grad, d], F(Tdim=a_type("int32")), [-1, 1])
        glab = self.op(X + "mul_1", "Mul", [e1, neg], F(), [-1, 10])
        del zeros
        grad, _ = self.tuple_(X, [gl, glab])
        grad = self.reshape_grad(S + "/Reshape", ctx["logits"], grad)
        fc2 = L["fc2"]
        grad, grads[fc2["b"]] = self.add_grad("fc2/add", fc2["mm"], fc2["br"], grad)
        grad, grads[fc2["w"]] = self.matmul_grad("fc2/MatMul", fc2["x"], fc2["wr"], grad)
        # dropout/dropout/mul = div * Floor
        Dp = L["dropout"]
        sc = G + "dropout/dropout/mul_grad/"
        g.reserve(sc[:-1])
        sx, sy, bga = self.broadcast_grad(sc, Dp["div"], Dp["floor"], None, None)
        sum_attrs = F(Tidx=a_type("int32"), keep_dims=a_b(False))
        m = self.op(sc + "Mul", "Mul", [grad, Dp["floor"]], F(), [-1, 1024])
        s = self.op(sc + "Sum", "Sum", [m, bga], sum_attrs)
        rx = self.op(sc + "Reshape", "Reshape", [s, sx], F(Tshape=a_type("int32")), [-1, 1024])
        m1 = self.op(sc + "Mul_1", "Mul", [Dp["div"], grad], F(), [-1, 1024])
        s1 = self.op(sc + "Sum_1", "Sum", [m1, out(bga, 1)], sum_attrs)
        ry = self.op(sc + "Reshape_1", "Reshape", [s1, sy], F(Tshape=a_type("int32")), [-1, 1024])
        grad, _ = self.tuple_(sc, [rx, ry])
        # dropout/dropout/div = fc1 / keep_prob (RealDiv)
        sc = G + "dropout/dropout/div_grad/"
        g.reserve(sc[:-1])
        sx, sy, bga = self.broadcast_grad(sc, Dp["fc1"], Dp["keep_prob"], None, None)
        rd = self.op(sc + "RealDiv", "RealDiv", [grad, Dp["keep_prob"]], F(), [-1, 1024])
        s = self.op(sc + "Sum", "Sum", [rd, bga], sum_attrs)
        rx = self.op(sc + "Reshape", "Reshape", [s, sx], F(Tshape=a_type("int32")), [-1, 1024])
        neg = self.op(sc + "Neg", "Neg", [Dp["fc1"]], F(), [-1, 1024])
        rd1 = self.op(sc + "RealDiv_1", "RealDiv", [neg, Dp["keep_prob"]], F(), [-1, 1024])
        rd2 = self.op(sc + "RealDiv_2", "RealDiv", [rd1, Dp["keep_prob"]], F(), [-1, 1024])
        m = self.op(sc + "mul", "Mul", [grad, rd2], F(), [-1, 1024])
        s1 = self.op(sc + "Sum_1", "Sum", [m, out(bga, 1)], sum_attrs)
        ry = self.op(sc + "Reshape_1", "Reshape", [s1, sy], F(Tshape=a_type("int32")))
        grad, _ = self.tuple_(sc, [rx, ry])
        fc1 = L["fc1"]
        grad = self.op(G + "fc1/Relu_grad/ReluGrad", "ReluGrad", [grad, fc1["relu"]], F(), [-1, 1024])
        grad, grads[fc1["b"]] = self.add_grad("fc1/add", fc1["mm"], fc1["br"], grad)
        grad, grads[fc1["w"]] = self.matmul_grad("fc1/MatMul", fc1["x"], fc1["wr"], grad)
        grad = self.reshape_grad("fc1/Reshape", L["pool2"]["y"], grad)
        for conv, pool in (("conv2", "pool2"), ("conv1", "pool1")):
            P = L[pool]
            grad = self.op(G + pool + "/MaxPool_grad/MaxPoolGrad", "MaxPoolGrad", [P["x"], P["y"], grad],
                           self.pool_attrs(), self.shape[P["x"]])
            C = L[conv]
            grad = self.op(G + conv + "/Relu_grad/ReluGrad", "ReluGrad", [grad, C["relu"]], F(), self.shape[C["relu"]])
            grad, grads[C["b"]] = self.add_grad(conv + "/add", C["conv"], C["br"], grad)
            grad, grads[C["w"]] = self.conv_grad(conv + "/Conv2D", C, grad)
        return [(grads[v], v) for v in self.vars]

    # ---- AdamOptimizer(1e-4).apply_gradients -------------------------------------
    def adam(self, grads_and_vars):
        g, F = self.g, self.F
        first = self.vars[0]
        loc = a_strs(["loc:@" + first])
        # _create_slots (in init_scope, the name scope kept): the beta powers, then m and v per variable.
        powers = {}
        for name, value in (("beta1_power", 0.9), ("beta2_power", 0.999)):
            v = "adam_optimizer/" + name
            g.reserve(v)
            init = self.const(v + "/initial_value", "float", [], [value], colocate=first)
            self.op(v, "VariableV2", [], {"_class": loc, "container": a_s(""), "dtype": a_type("float"),
                                          "shape": a_shape([]), "shared_name": a_s("")}, [], exact=True)
            self.op(v + "/Assign", "Assign", [v, init],
                    F(_class=loc, use_locking=a_b(True), validate_shape=a_b(True)), [], exact=True)
            powers[name] = (v, self.op(v + "/read", "Identity", [v], F(_class=loc), [], exact=True))
        slots = {}
        for var in self.vars:
            shape = self.shape[var]
            vloc = a_strs(["loc:@" + var])
            for slot in ("Adam", "Adam_1"):
                s = var + "/" + slot
                g.reserve(s)
                n = 1
                for d in shape:
                    n *= d
                I = s + "/Initializer/"
                g.reserve(s + "/Initializer")
                if n < 1000:
                    init = self.const(I + "zeros", "float", shape, [0.0], colocate=var)
                else:
                    g.reserve(I + "zeros")
                    sat = self.const(I + "zeros/shape_as_tensor", "int32", [len(shape)], shape, colocate=var)
                    z = self.const(I + "zeros/Const", "float", [], [0.0], colocate=var)
                    init = self.op(I + "zeros", "Fill", [sat, z], F(_class=vloc, index_type=a_type("int32")), shape,
                                   exact=True)
                self.op(s, "VariableV2", [], {"_class": vloc, "container": a_s(""), "dtype": a_type("float"),
                                              "shape": a_shape(shape), "shared_name": a_s("")}, shape, exact=True)
                self.op(s + "/Assign", "Assign", [s, init],
                        F(_class=vloc, use_locking=a_b(True), validate_shape=a_b(True)), shape, exact=True)
                self.op(s + "/read", "Identity", [s], F(_class=vloc), shape, exact=True)
                slots[(var, slot)] = s
        A = "adam_optimizer/Adam/"
        g.reserve(A[:-1])
        lr = self.const(A + "learning_rate", "float", [], [1e-4])
        b1 = self.const(A + "beta1", "float", [], [0.9])
        b2 = self.const(A + "beta2", "float", [], [0.999])
        eps = self.const(A + "epsilon", "float", [], [1e-08])
        updates = []
        for grad, var in grads_and_vars:
            sc = A + "update_" + var
            g.reserve(sc)
            updates.append(self.op(sc + "/ApplyAdam", "ApplyAdam",
                                   [var, slots[(var, "Adam")], slots[(var, "Adam_1")], powers["beta1_power"][1],
                                    powers["beta2_power"][1], lr, b1, b2, eps, grad],
                                   F(_class=a_strs(["loc:@" + var]), use_locking=a_b(False),
                                     use_nesterov=a_b(False)), self.shape[var], exact=True))
        assigns = []
        for name, beta, mul in (("beta1_power", b1, "mul"), ("beta2_power", b2, "mul_1")):
            v, read = powers[name]
            m = self.op(A + mul, "Mul", [read, beta], F(_class=loc), [], control=updates)
            assigns.append(self.op(A + "Assign", "Assign", [v, m],
                                   F(_class=loc, use_locking=a_b(False), validate_shape=a_b(True)), [],
                                   control=updates))
        self.train_op = self.op(A[:-1], "NoOp", [], {}, control=updates + assigns, exact=True)


HEADER = """The graph of TensorFlow's tutorial tensorflow/examples/tutorials/mnist/mnist_deep.py
(two conv layers with VariableV2 weights, dropout, softmax cross-entropy, Adam)
as TF 1.12 writes it: written by make_mnist_deep.py beside this file; see its
docstring for where each node comes from.
Feed Placeholder [N,784], Placeholder_1 [N,10] (one-hot), dropout/Placeholder
(keep_prob); initialize with the v/Assign nodes; train op adam_optimizer/Adam;
loss Mean, accuracy Mean_1.
Regenerate with: python3 tests/data/small_cnn/make_mnist_deep.py"""


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    m = MnistDeep()
    m.build()
    with open(os.path.join(here, "mnist_deep.pbtxt"), "w") as f:
        f.write(m.g.text(PRODUCER, HEADER))


if __name__ == "__main__":
    main()
