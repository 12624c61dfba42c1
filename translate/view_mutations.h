// File: translate/view_mutations.h
// -----------------------------------------------------------------------------
// torch.export's default (training) IR keeps in-place ops, and an in-place op
// on a view writes into the view's base: Hugging Face's shift_tokens_right
// does `shifted[:, 1:] = ids[:, :-1]` (aten::slice.Tensor + aten::copy_) and
// `shifted[:, 0] = start` (aten::select.int + aten::fill_). Translated one
// node at a time, only the view would change and the base would silently keep
// its old values.
//
// WriteBackViewMutations makes those writes explicit before translation:
// after an in-place op on a slice or select view, it inserts
// aten::slice_scatter / aten::select_scatter nodes that write the new view
// back into its base (up a chain of such views) and makes later nodes read
// the new base. Mutations it cannot write back faithfully are refused with
// advice (ep.run_decompositions() functionalizes the program): an in-place op
// through another kind of view (view, transpose, expand, ...) whose base is
// read later, and any mutation after which an older view of the same tensor
// is still read (that view would be stale).
#ifndef PT2ONNX_TRANSLATE_VIEW_MUTATIONS_H_
#define PT2ONNX_TRANSLATE_VIEW_MUTATIONS_H_

#include <optional>

#include "absl/status/statusor.h"
#include "core/pt2/schema.h"

namespace pt2onnx::translate {

// The program with the write-backs inserted; nullopt when no in-place op
// mutates a view (nothing to change).
absl::StatusOr<std::optional<pt2::ExportedProgram>> WriteBackViewMutations(
    const pt2::ExportedProgram& program);

}  // namespace pt2onnx::translate

#endif  // PT2ONNX_TRANSLATE_VIEW_MUTATIONS_H_
