"""Minimal Emscripten C++ toolchain for Bazel 4.2.3 (legacy --crosstool_top/--cpu selection)."""
load("@bazel_tools//tools/build_defs/cc:action_names.bzl", "ACTION_NAMES")
load(
    "@bazel_tools//tools/cpp:cc_toolchain_config_lib.bzl",
    "feature", "flag_group", "flag_set", "tool_path", "with_feature_set",
)

_C_COMPILE = [ACTION_NAMES.c_compile]
_CXX_COMPILE = [ACTION_NAMES.cpp_compile, ACTION_NAMES.cpp_header_parsing, ACTION_NAMES.cpp_module_compile, ACTION_NAMES.linkstamp_compile]
_LINK = [ACTION_NAMES.cpp_link_executable, ACTION_NAMES.cpp_link_dynamic_library, ACTION_NAMES.cpp_link_nodeps_dynamic_library]

def _impl(ctx):
    tool_paths = [
        tool_path(name = "gcc", path = "emcc.sh"),
        tool_path(name = "ld", path = "emcc.sh"),
        tool_path(name = "ar", path = "emar.sh"),
        tool_path(name = "cpp", path = "/bin/false"),
        tool_path(name = "gcov", path = "/bin/false"),
        tool_path(name = "nm", path = "/bin/false"),
        tool_path(name = "objdump", path = "/bin/false"),
        tool_path(name = "strip", path = "/bin/false"),
    ]
    features = [
        feature(name = "dbg"),
        feature(name = "opt"),
        feature(
            name = "default_compile_flags",
            enabled = True,
            flag_sets = [
                flag_set(actions = _C_COMPILE + _CXX_COMPILE, flag_groups = [flag_group(flags = ["-Wno-unused-command-line-argument"])]),
                flag_set(actions = _CXX_COMPILE, flag_groups = [flag_group(flags = ["-std=c++17"])]),
                # -O3 as the shipped module wants (transition.bzl sets the opt mode); a feature declared
                # below (unoptimized_compile) can still override it, which a --copt could not.
                flag_set(actions = _C_COMPILE + _CXX_COMPILE, flag_groups = [flag_group(flags = ["-O3", "-DNDEBUG"])], with_features = [with_feature_set(features = ["opt"])]),
                flag_set(actions = _C_COMPILE + _CXX_COMPILE, flag_groups = [flag_group(flags = ["-g", "-O0"])], with_features = [with_feature_set(features = ["dbg"])]),
            ],
        ),
        feature(
            name = "default_link_flags",
            enabled = True,
            flag_sets = [
                flag_set(actions = _LINK, flag_groups = [flag_group(flags = ["-sALLOW_MEMORY_GROWTH=1"])]),
                flag_set(actions = _LINK, flag_groups = [flag_group(flags = ["-O2"])], with_features = [with_feature_set(features = ["opt"])]),
            ],
        ),
        # Link the shipped module at -O3 (wasm-opt's -O3 passes): the opt feature's -O2 above comes after the
        # transition's --linkopt=-O3 on the command line, so this one, declared later, has the last word.
        # Enabled by the module's own target (wasm/BUILD.bazel); measured 7-8 % faster conversion than -O2.
        feature(name = "optimized_link", flag_sets = [
            flag_set(actions = _LINK, flag_groups = [flag_group(flags = ["-O3"])]),
        ]),
        # Link without emcc's optimizations (no wasm-opt) whatever the mode: the googletest binaries built
        # with the package's -O3 objects (node_test.bzl), where wasm-opt over each test costs more than
        # it saves. Declared after default_link_flags, so its -O0 is the last -O emcc sees.
        feature(name = "unoptimized_link", flag_sets = [
            flag_set(actions = _LINK, flag_groups = [flag_group(flags = ["-O0"])]),
        ]),
        # Compile the target's own sources at -O1 whatever the mode (declared after default_compile_flags, so
        # the last -O clang sees): the googletest sources of the NAME_wasm tests
        # (node_test.bzl), whose libraries stay the package's -O3 objects. Test code is mostly googletest's
        # macros, where -O3 cost most of the step's compile time and bought nothing.
        feature(name = "unoptimized_compile", flag_sets = [
            flag_set(actions = _C_COMPILE + _CXX_COMPILE, flag_groups = [flag_group(flags = ["-O1"])]),
        ]),
        # The host's file system under node (NODERAWFS), for the googletest binaries (node_test.bzl): they
        # read committed fixtures from their runfiles, which Emscripten's default in-memory file system
        # does not hold. Never for the shipped module, which runs in browsers too.
        feature(name = "node_raw_fs", flag_sets = [
            flag_set(actions = _LINK, flag_groups = [flag_group(flags = ["-sNODERAWFS=1"])]),
        ]),
        # C++ exceptions through JS (ONNX's checker throws). On by default; the shipped module turns it off
        # (wasm/package.bzl) because every call that may unwind then goes through a JS trampoline, which
        # made conversion several times slower. Our own code never throws; there, bad_alloc aborts.
        feature(name = "exceptions", enabled = True, flag_sets = [
            flag_set(actions = _C_COMPILE + _CXX_COMPILE + _LINK, flag_groups = [flag_group(flags = ["-fexceptions"])]),
        ]),
        # WebAssembly's own exception handling (zero cost until a throw), for the few targets that must
        # catch where the shipped module has "-exceptions": ONNX's checker and shape inference, their
        # catch boundary and the module's link. Frames compiled without it never see a throw (the catch
        # sits right above the ONNX code). Off wherever the JS-based "exceptions" is on.
        feature(name = "wasm_exceptions", flag_sets = [
            flag_set(
                actions = _C_COMPILE + _CXX_COMPILE + _LINK,
                flag_groups = [flag_group(flags = ["-fwasm-exceptions"])],
                with_features = [with_feature_set(not_features = ["exceptions"])],
            ),
        ]),
        # Link output is a tar of NAME.mjs + NAME.wasm (emcc.sh), for modules whose .wasm must stay a separate
        # file (browsers compile it while it downloads). NAME comes from the --pt2onnx-split-wasm=NAME linkopt.
        feature(name = "wasm_split_output"),
        # .wasm embedded in the .js, so the link output is the single file Bazel declared. Disable per target
        # with features = ["-wasm_single_file"] only if you collect the side .wasm some other way.
        feature(name = "wasm_single_file", enabled = True, flag_sets = [
            flag_set(actions = _LINK, flag_groups = [flag_group(flags = ["-sSINGLE_FILE=1"])]),
        ]),
        # "#!/usr/bin/env node" first line: cc_binary/cc_test outputs run directly (bazel run / bazel test).
        feature(name = "node_shebang", enabled = True, flag_sets = [
            flag_set(actions = _LINK, flag_groups = [flag_group(flags = ["--extern-pre-js", "tools/toolchain/wasm/shebang.js"])]),
        ]),
    ]
    return cc_common.create_cc_toolchain_config_info(
        ctx = ctx,
        toolchain_identifier = "emscripten-wasm",
        host_system_name = "x86_64-unknown-linux-gnu",
        target_system_name = "wasm32-unknown-emscripten",
        target_cpu = "wasm",
        target_libc = "musl",
        compiler = "emscripten",
        abi_version = "emscripten",
        abi_libc_version = "default",
        tool_paths = tool_paths,
        features = features,
        cxx_builtin_include_directories = [
            "/usr/share/emscripten/cache/sysroot/include",
            "/usr/lib/llvm-14/lib/clang/14.0.6/include",
        ],
    )

emscripten_cc_toolchain_config = rule(implementation = _impl, attrs = {}, provides = [CcToolchainConfigInfo])
