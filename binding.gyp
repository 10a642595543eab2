{
  "targets": [
    {
      "target_name": "kube_proxy_native",
      # Every .cc under native/ and its subdirectories except the fuzz targets, so a new file or
      # layer (native/<layer>/*.cc, see native/README.md) joins the build without editing this
      # file. Includes are relative to native/ ("netlink/socket.h").
      "sources": [
        "<!@(find native -name '*.cc' -not -path 'native/fuzz/*' | sort)"
      ],
      "include_dirs": [
        "<!(node -p \"require('node-addon-api').include_dir\")",
        "native"
      ],
      # NAPI_VERSION: the lowest Node-API version that has every function the built addon imports
      # (napi_add_finalizer, 5, through node-addon-api; threadsafe functions 4; env cleanup hooks 3).
      # 4 compiles too, but switches node-addon-api to its pre-5 fallbacks (docs/native-api.md).
      "defines": ["NAPI_DISABLE_CPP_EXCEPTIONS", "NAPI_VERSION=5"],
      "cflags!": ["-fno-exceptions", "-O3"],
      # C++20: Node 24's v8.h requires it (native/napi/addon.cc includes it for memoryPressureGc), and
      # its common.gypi's -std=gnu++20 is replaced here as Node 20's gnu++17 is, so both build alike.
      "cflags_cc!": ["-fno-exceptions", "-std=gnu++1y", "-std=gnu++17", "-std=gnu++20", "-O3"],
      "cflags": ["-O2", "-Wall", "-Wextra"],
      "cflags_cc": ["-std=c++20", "-O2", "-Wall", "-Wextra", "-fno-exceptions"]
    }
  ]
}
