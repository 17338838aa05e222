#pragma once
// Typed editors for node attributes in the inspector: a dtype picker, a
// shape field ("[4,3]", "[?,3]"), spin boxes for ints and floats, a check box
// for bools, text fields for strings, int/type/shape lists and tensors
// (numpy-style "[[1,2],[3,4]]", read as the node's dtype). An editor calls
// `commit` with the new value when an edit is finished; text that does not
// parse turns the field red with the reason as its tooltip and commits nothing.
#include <QWidget>
#include <functional>
#include <optional>

#include "graph/attr_value.h"
#include "ops/framework/op_registry.h"

namespace flowlens::ui {

using AttrCommit = std::function<void(const AttrValue&)>;

// `current` may be null (the attr is not set). `tensor_dtype` is what a
// tensor's text is read as (the node's dtype or T attr).
QWidget* make_attr_editor(std::optional<AttrKind> kind, const AttrValue* current, DType tensor_dtype, const AttrCommit& commit);

// The kind an existing value has, for attrs the op does not declare (_class).
std::optional<AttrKind> attr_kind_of(const AttrValue& value);

// The dtypes offered by the type picker, in order.
const std::vector<DType>& editable_dtypes();

}  // namespace flowlens::ui
