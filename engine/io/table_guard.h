#pragma once
// A check run before LevelDB opens a checkpoint table. LevelDB allocates a
// block's buffer from the size its handle states before reading it, so a
// hostile .index naming a terabyte block makes it try to allocate a terabyte.
// This walks the footer and the index block (the only handles LevelDB follows
// for our tables: no filter policy is set) and checks that every block they
// name lies inside the file. Internal to engine/io.
#include <string>

namespace flowlens::io_detail {

// "" when every block handle lies within the file, else what is wrong (the
// caller adds the file name). Blocks LevelDB will verify anyway (checksums,
// compressed index blocks) are left to it.
std::string table_layout_problem(const std::string& path);

}  // namespace flowlens::io_detail
