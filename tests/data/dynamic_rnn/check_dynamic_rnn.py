#!/usr/bin/env python3
"""Checks lstm_train.pbtxt by running it: a small TF 1.x dataflow interpreter
in plain Python (standard library only) executes the node list that
make_dynamic_rnn.py builds, with TensorFlow's executor semantics for v1
control flow, and compares the loss, the gradients and three SGD steps with
lstm_train.expected.json (the generator's independent BPTT reference).

What it models, as tensorflow/core/common_runtime/executor.cc does: frames
and iterations (an Enter starts iteration 0 of a child frame instance, or is
visible in every iteration when is_constant; NextIteration moves to the next
iteration; Exit goes back to the parent frame), dead tensors (the untaken
Switch output; a node with a dead data or control input is dead, except
Merge, which waits for one live input, and ControlTrigger; a dead Exit or
NextIteration is dropped), TensorArrays (clear_after_read reads,
TensorArrayGradV3 looked up by forward array and source, one set per run)
and stacks. It runs only what the fetches and targets need.

A graph that passes here is well formed TF 1.x; the engine test
(tests/engine/test_dynamic_rnn.cpp) compares FlowLens against the same
reference. Run:  python3 check_dynamic_rnn.py   (after make_dynamic_rnn.py)
"""
import importlib.util
import json
import math
import os
from collections import deque

HERE = os.path.dirname(os.path.abspath(__file__)) + "/"
spec = importlib.util.spec_from_file_location("m", HERE + "make_dynamic_rnn.py")
m = importlib.util.module_from_spec(spec)
spec.loader.exec_module(m)

CONSTS = {}
_orig_const = m.Builder.const
def _const(self, name, dtype, dims, vals, control=(), cls=None):
    n = _orig_const(self, name, dtype, dims, vals, control, cls)
    size = 1
    for d in dims: size *= d
    v = list(vals) if len(vals) == size else [vals[0]] * size
    CONSTS[n] = (tuple(dims), v)
    return n
m.Builder.const = _const

k0, d0, inputs, labels = m.values()
g = m.build(k0, d0)
nodes = {}
for n in g.nodes:
    data, ctrl = [], []
    for i in n["input"]:
        if i.startswith("^"):
            ctrl.append(i[1:])
        else:
            s, _, p = i.partition(":")
            data.append((s, int(p) if p else 0))
    nodes[n["name"]] = {"op": n["op"], "data": data, "ctrl": ctrl, "attr": n["attr"], "name": n["name"]}
for nm, n in nodes.items():
    for s, _ in n["data"]:
        assert s in nodes, (nm, s)
    for s in n["ctrl"]:
        assert s in nodes, (nm, s)

def attr(n, key):
    v = n["attr"][key][0]
    k, val = v
    if k == "i": return int(val)
    if k == "b": return val == "true"
    if k == "s": return val.strip('"')
    if k == "type": return val
    return val

consumers = {}
for nm, n in nodes.items():
    for s, p in n["data"]:
        consumers.setdefault(s, []).append(nm)
    for s in n["ctrl"]:
        consumers.setdefault(s, []).append(nm)

DEAD = object()

def T(shape, vals): return (tuple(shape), list(vals))
def size(shape):
    r = 1
    for d in shape: r *= d
    return r
def strides(shape):
    st = [1] * len(shape)
    for i in range(len(shape) - 2, -1, -1): st[i] = st[i + 1] * shape[i + 1]
    return st
def unravel(i, shape):
    idx = []
    for d in reversed(shape):
        idx.append(i % d); i //= d
    return idx[::-1]

def bcast(a, b, f):
    (sa, va), (sb, vb) = a, b
    if sa == sb: return T(sa, [f(x, y) for x, y in zip(va, vb)])
    if len(vb) == 1: return T(sa, [f(x, vb[0]) for x in va])
    if len(va) == 1: return T(sb, [f(va[0], y) for y in vb])
    r = max(len(sa), len(sb)); pa = (1,) * (r - len(sa)) + sa; pb = (1,) * (r - len(sb)) + sb
    ns = tuple(max(x, y) for x, y in zip(pa, pb)); sta, stb = strides(pa), strides(pb); out = []
    for i in range(size(ns)):
        idx = unravel(i, ns)
        ia = sum((0 if pa[d] == 1 else idx[d]) * sta[d] for d in range(r))
        ib = sum((0 if pb[d] == 1 else idx[d]) * stb[d] for d in range(r))
        out.append(f(va[ia], vb[ib]))
    return T(ns, out)

def transpose(x, perm):
    s, v = x
    ns = [s[p] for p in perm]
    st = strides(s)
    out = []
    for i in range(size(ns)):
        idx = unravel(i, ns)
        out.append(v[sum(idx[k] * st[perm[k]] for k in range(len(perm)))])
    return T(ns, out)

def matmul(a, b, ta, tb):
    if ta: a = transpose(a, [1, 0])
    if tb: b = transpose(b, [1, 0])
    (n, k), va = a; (k2, mm), vb = b
    assert k == k2
    out = [0.0] * (n * mm)
    for i in range(n):
        for p in range(k):
            x = va[i * k + p]
            for j in range(mm): out[i * mm + j] += x * vb[p * mm + j]
    return T((n, mm), out)

def ss_indices(shape, begin, end, strd, bm, em, sm):
    """Strided slice with positive strides: per dim the list of indices, and the output shape."""
    per, oshape = [], []
    for d in range(len(shape)):
        n = shape[d]
        if d >= len(begin):
            per.append(list(range(n))); oshape.append(n); continue
        b = 0 if bm >> d & 1 else begin[d]
        e = n if em >> d & 1 else end[d]
        if b < 0: b += n
        if e < 0: e += n
        if sm >> d & 1:
            per.append([b]); continue
        idx = list(range(b, min(e, n), strd[d]))
        per.append(idx); oshape.append(len(idx))
    return per, oshape

def iter_product(lists):
    res = [[]]
    for l in lists: res = [r + [x] for r in res for x in l]
    return res

def reduce_sum(x, axes):
    s, v = x
    axes = [a % len(s) for a in axes]
    ns = [s[d] for d in range(len(s)) if d not in axes]
    out = [0.0] * size(ns)
    for i, val in enumerate(v):
        idx = unravel(i, s)
        o = [idx[d] for d in range(len(s)) if d not in axes]
        j = 0
        for d, x_ in zip(ns, o): j = j * d + x_
        out[j] += val
    return T(ns, out)

def slice_(x, begin, sz):
    s, v = x
    st = strides(s)
    out = []
    for idx in iter_product([range(begin[d], begin[d] + sz[d]) for d in range(len(s))]):
        out.append(v[sum(i * t for i, t in zip(idx, st))])
    return T(sz, out)

def concat(vals, axis):
    s0 = vals[0][0]
    axis %= len(s0)
    ns = list(s0); ns[axis] = sum(v[0][axis] for v in vals)
    outer = size(s0[:axis]); out = []
    for o in range(outer):
        for (s, v) in vals:
            inner = size(s[axis:])
            out += v[o * inner:(o + 1) * inner]
    return T(ns, out)

class Var:
    def __init__(self): self.value = None

VARS = {}
TAS = []
STACKS = []
TA_GRADS = {}

def run(fetches, targets, feeds):
    TA_GRADS.clear()  # TensorArrays (and so their gradients) live for one run
    needed = set()
    work = list(fetches) + list(targets)
    while work:
        x = work.pop()
        if x in needed: continue
        needed.add(x)
        n = nodes[x]
        work += [s for s, _ in n["data"]] + n["ctrl"]
    vals = {}       # (name, port, inst, it) -> value ; port -1 = control
    done = set()
    queue = deque()
    for x in needed:
        n = nodes[x]
        if not n["data"] and not n["ctrl"]:
            queue.append((x, (), 0))
    def get(src, port, inst, it):
        for key in ((src, port, inst, it), (src, port, inst, "*")):
            if key in vals: return True, vals[key]
        return False, None
    def emit(x, outs, inst, it, ctrl_live=True):
        n = nodes[x]
        store_inst, store_it = inst, it
        if n["op"] == "Exit":
            if outs[0] is DEAD: return
            store_inst, store_it = inst_parent[inst]
        elif n["op"] == "NextIteration":
            if outs[0] is DEAD: return
            store_it = it + 1
        elif n["op"] == "Enter":
            frame = attr(n, "frame_name")
            child = inst + ((frame, it),)
            inst_parent[child] = (inst, it)
            store_inst, store_it = child, ("*" if attr(n, "is_constant") else 0)
        for p, o in enumerate(outs):
            vals[(x, p, store_inst, store_it)] = o
        vals[(x, -1, store_inst, store_it)] = (DEAD if (outs and all(o is DEAD for o in outs) and n["op"] != "ControlTrigger") else True) if outs else (True if ctrl_live else DEAD)
        for c in consumers.get(x, []):
            if c not in needed: continue
            if store_it == "*":
                # a constant Enter: consumers may run in any iteration; re-check the known ones
                for (cn, ci, cit) in list(pending_iters.get(store_inst, set())):
                    queue.append((c, ci, cit))
                queue.append((c, store_inst, 0))
            else:
                queue.append((c, store_inst, store_it))
    pending_iters = {}
    while queue:
        x, inst, it = queue.popleft()
        pending_iters.setdefault(inst, set()).add((x, inst, it))
        if (x, inst, it) in done: continue
        n = nodes[x]
        ins = []
        ready = True
        for s, p in n["data"]:
            ok, v = get(s, p, inst, it)
            if not ok and n["op"] != "Merge": ready = False; break
            ins.append(v if ok else None)
        if not ready: continue
        cdead = False
        for s in n["ctrl"]:
            ok, v = get(s, -1, inst, it)
            if not ok: ready = False; break
            if v is DEAD: cdead = True
        if not ready: continue
        if n["op"] == "Merge":
            live = [(i, v) for i, v in enumerate(ins) if v is not None and v is not DEAD]
            if not live:
                if any(v is None for v in ins): continue
                done.add((x, inst, it)); emit(x, [DEAD, DEAD], inst, it); continue
            done.add((x, inst, it)); emit(x, [live[0][1], T((), [live[0][0]])], inst, it); continue
        done.add((x, inst, it))
        if n["op"] == "ControlTrigger":
            emit(x, [], inst, it, True); continue
        if cdead or any(v is DEAD for v in ins):
            nout = {"Switch": 2, "Split": 4, "TensorArrayV3": 2, "TensorArrayGradV3": 2, "BroadcastGradientArgs": 2,
                    "ConcatOffset": 2, "SparseSoftmaxCrossEntropyWithLogits": 2}.get(n["op"], 1)
            if n["op"] == "NoOp": nout = 0
            emit(x, [DEAD] * nout, inst, it, False); continue
        outs = execute(n, ins, feeds)
        emit(x, outs, inst, it)
    res = []
    for f in fetches:
        ok, v = get(f, 0, (), 0)
        assert ok and v is not DEAD, f
        res.append(v)
    for t in targets:
        assert (t, -1, (), 0) in vals, t
    return res

inst_parent = {}

def execute(n, ins, feeds):
    op = n["op"]; nm = n["name"]
    if op == "Const": return [T(*CONSTS[nm])]
    if op == "Placeholder": return [feeds[nm]]
    if op == "VariableV2": return [("var", VARS.setdefault(nm, Var()))]
    if op == "Assign":
        ins[0][1].value = T(ins[1][0], list(ins[1][1])); return [ins[0]]
    if op in ("Identity", "PreventGradient", "Enter", "Exit", "NextIteration", "LoopCond"):
        v = ins[0]
        if isinstance(v, tuple) and v[0] == "var": v = T(v[1].value[0], list(v[1].value[1]))
        return [v]
    if op == "Switch":
        return [DEAD, ins[0]] if ins[1][1][0] else [ins[0], DEAD]
    if op == "NoOp": return []
    if op == "Range":
        a, b, d = ins[0][1][0], ins[1][1][0], ins[2][1][0]
        r = list(range(a, b, d)); return [T((len(r),), r)]
    if op == "ConcatV2":
        return [concat(ins[:-1], ins[-1][1][0])]
    if op == "Transpose": return [transpose(ins[0], ins[1][1])]
    if op == "Fill": return [T(ins[0][1], [ins[1][1][0]] * size(ins[0][1]))]
    if op == "StridedSlice":
        x = ins[0]
        per, osh = ss_indices(x[0], ins[1][1], ins[2][1], ins[3][1], attr(n, "begin_mask"), attr(n, "end_mask"),
                              attr(n, "shrink_axis_mask"))
        st = strides(x[0])
        return [T(osh, [x[1][sum(i * t for i, t in zip(idx, st))] for idx in iter_product(per)])]
    if op == "StridedSliceGrad":
        shape = ins[0][1]; dy = ins[4]
        per, osh = ss_indices(shape, ins[1][1], ins[2][1], ins[3][1], attr(n, "begin_mask"), attr(n, "end_mask"),
                              attr(n, "shrink_axis_mask"))
        out = [0.0] * size(shape); st = strides(shape)
        for k, idx in enumerate(iter_product(per)): out[sum(i * t for i, t in zip(idx, st))] = dy[1][k]
        return [T(shape, out)]
    if op == "TensorArrayV3":
        ta = {"size": ins[0][1][0], "elems": {}}
        TAS.append(ta); return [("ta", ta), T((), [0.0])]
    if op == "TensorArrayGradV3":
        key = (id(ins[0][1]), attr(n, "source"))
        if key not in TA_GRADS: TA_GRADS[key] = {"size": ins[0][1]["size"], "elems": {}}
        return [("ta", TA_GRADS[key]), T((), [0.0])]
    if op == "TensorArrayScatterV3":
        ta = ins[0][1]; idx = ins[1][1]; v = ins[2]
        inner = v[0][1:]; sz = size(inner)
        for k, i in enumerate(idx):
            assert i not in ta["elems"]
            ta["elems"][i] = T(inner, v[1][k * sz:(k + 1) * sz])
        return [T((), [0.0])]
    if op == "TensorArrayReadV3":
        ta = ins[0][1]; i = ins[1][1][0]
        return [ta["elems"].pop(i)]  # clear_after_read
    if op == "TensorArrayWriteV3":
        ta = ins[0][1]; i = ins[1][1][0]
        assert i not in ta["elems"]; ta["elems"][i] = ins[2]; return [T((), [0.0])]
    if op == "TensorArrayGatherV3":
        ta = ins[0][1]; es = [ta["elems"].pop(i) for i in ins[1][1]]
        return [T((len(es),) + es[0][0], sum((e[1] for e in es), []))]
    if op in ("Maximum", "Minimum", "Less", "LogicalAnd", "AddV2", "Add", "Sub", "Mul", "GreaterEqual", "RealDiv",
              "FloorMod"):
        f = {"Maximum": max, "Minimum": min, "Less": lambda a, b: a < b, "LogicalAnd": lambda a, b: a and b,
             "AddV2": lambda a, b: a + b, "Add": lambda a, b: a + b, "Sub": lambda a, b: a - b,
             "Mul": lambda a, b: a * b, "GreaterEqual": lambda a, b: a >= b, "RealDiv": lambda a, b: a / b,
             "FloorMod": lambda a, b: a % b}[op]
        return [bcast(ins[0], ins[1], f)]
    if op == "MatMul": return [matmul(ins[0], ins[1], attr(n, "transpose_a"), attr(n, "transpose_b"))]
    if op == "BiasAdd":
        s, v = ins[0]; b = ins[1][1]; c = len(b)
        return [T(s, [x + b[i % c] for i, x in enumerate(v)])]
    if op == "BiasAddGrad":
        s, v = ins[0]; c = s[-1]
        return [T((c,), [sum(v[i] for i in range(j, len(v), c)) for j in range(c)])]
    if op == "Split":
        axis = ins[0][1][0]; x = ins[1]; k = attr(n, "num_split")
        s = x[0]; w = s[axis] // k
        return [slice_(x, [0] * axis + [j * w] + [0] * (len(s) - axis - 1), list(s[:axis]) + [w] + list(s[axis + 1:]))
                for j in range(k)]
    if op == "Sigmoid": return [T(ins[0][0], [1 / (1 + math.exp(-x)) for x in ins[0][1]])]
    if op == "Tanh": return [T(ins[0][0], [math.tanh(x) for x in ins[0][1]])]
    if op == "SigmoidGrad": return [T(ins[0][0], [y * (1 - y) * d for y, d in zip(ins[0][1], ins[1][1])])]
    if op == "TanhGrad": return [T(ins[0][0], [(1 - y * y) * d for y, d in zip(ins[0][1], ins[1][1])])]
    if op == "SparseSoftmaxCrossEntropyWithLogits":
        (b, c), v = ins[0]; lab = ins[1][1]; loss = []; bp = []
        for i in range(b):
            row = v[i * c:(i + 1) * c]; mx = max(row); e = [math.exp(x - mx) for x in row]; s = sum(e)
            loss.append(-math.log(e[lab[i]] / s))
            bp += [e[k] / s - (1.0 if k == lab[i] else 0.0) for k in range(c)]
        return [T((b,), loss), T((b, c), bp)]
    if op == "Mean":
        r = reduce_sum(ins[0], ins[1][1]); cnt = size(ins[0][0]) // max(size(r[0]), 1)
        return [T(r[0], [x / cnt for x in r[1]])]
    if op == "Sum": return [reduce_sum(ins[0], ins[1][1])]
    if op == "Reshape":
        shp = list(ins[1][1])
        if -1 in shp:
            k = shp.index(-1); shp[k] = size(ins[0][0]) // -size(shp)
        assert size(shp) == size(ins[0][0]); return [T(shp, ins[0][1])]
    if op == "Tile":
        assert len(ins[0][0]) == 1; return [T((ins[0][0][0] * ins[1][1][0],), ins[0][1] * ins[1][1][0])]
    if op == "ExpandDims":
        d = ins[1][1][0]; s = list(ins[0][0]); d = d % (len(s) + 1); s.insert(d, 1); return [T(s, ins[0][1])]
    if op == "AddN":
        return [T(ins[0][0], [sum(x) for x in zip(*(i[1] for i in ins))])]
    if op == "InvertPermutation":
        p = ins[0][1]; r = [0] * len(p)
        for i, x in enumerate(p): r[x] = i
        return [T((len(p),), r)]
    if op == "StackV2":
        st = []; STACKS.append(st); return [("stack", st)]
    if op == "StackPushV2":
        ins[0][1].append(ins[1]); return [ins[1]]
    if op == "StackPopV2":
        return [ins[0][1].pop()]
    if op == "BroadcastGradientArgs":
        a, b = ins[0][1], ins[1][1]
        assert list(b) == [] ; return [T((0,), []), T((len(a),), list(range(len(a))))]
    if op == "ConcatOffset":
        axis = ins[0][1][0]; off = 0; res = []
        for s in ins[1:]:
            o = [0] * len(s[1]); o[axis] = off; off += s[1][axis]; res.append(T((len(o),), o))
        return res
    if op == "Slice": return [slice_(ins[0], ins[1][1], ins[2][1])]
    if op == "ApplyGradientDescent":
        var = ins[0][1]; lr = ins[1][1][0]; g = ins[2]
        assert var.value[0] == tuple(g[0]), (nm, var.value[0], g[0])
        var.value = T(var.value[0], [w - lr * d for w, d in zip(var.value[1], g[1])])
        return [ins[0]]
    raise Exception("no op " + op)

exp = json.load(open(HERE + "lstm_train.expected.json"))
feeds = {"inputs": T((4, 5, 3), exp["feed"]["inputs"]["values"]), "labels": T((4,), exp["feed"]["labels"]["values"])}
inits = [x for x in nodes if nodes[x]["op"] == "Assign"]
for a in inits: run([], [a], feeds)
def cmp(what, got, want):
    worst = max(abs(a - b) for a, b in zip(got, want))
    assert len(got) == len(want), what
    print("%-70s max |diff| %.3g" % (what, worst)); assert worst < 1e-9, what
gk = list(exp["gradients_before_training"])
out = run(["Mean"] + gk, [], feeds)
cmp("loss0", out[0][1], [exp["loss"][0]])
for k, v in zip(gk, out[1:]): cmp(k, v[1], exp["gradients_before_training"][k])
for step in range(3):
    run([], ["GradientDescent"], feeds)
    cmp("loss after step %d" % (step + 1), run(["Mean"], [], feeds)[0][1], [exp["loss"][step + 1]])
for v, d in exp["variables_after"].items():
    cmp(v, run([v + "/read"], [], feeds)[0][1], d["values"])
assert not any(STACKS), "a stack was left with values"
print("ok: lstm_train.pbtxt matches the reference")
