"""The layer rules of check_layers.py hold for the tree, and the checker
itself catches what it should (so an empty result is not a silent no-op)."""
import check_layers


def test_no_lower_layer_uses_a_higher_one():
    assert check_layers.check() == []


def test_checker_flags_upward_and_allows_downward_uses():
    v = check_layers.violation
    assert v("core/pt2/pt2_reader.cc", "ops/shape_helpers.h")
    assert v("translate/translator.cc", "ops/shape_helpers.h")
    assert v("ops/activation.cc", "export/export.h")
    assert v("runtime/plan/session.cc", "translate/registry.h")
    assert v("core/onnx/model_writer.cc", "runtime/plan/session.h")
    assert v("reference/interpreter.h", "runtime/plan/session.h")
    assert v("runtime/plan/session.cc", "reference/interpreter.h")
    assert v("verify/verifier.cc", "translate/registry.h")
    assert v("native/main.cc", "wasm/parts_sink.h")
    assert v("ops/activation.cc", "translate/translate_context.h") is None
    assert v("export/export.cc", "passes/pass_manager.h") is None
    assert v("runtime/plan/session.cc", "core/onnx/model_reader.h") is None
    assert v("reference/interpreter.h", "core/tensor/tensor.h") is None
    assert v("verify/verifier.cc", "reference/interpreter.h") is None
    assert v("native/main.cc", "export/export.h") is None
