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
      "defines": ["NAPI_DISABLE_CPP_EXCEPTIONS", "NAPI_VERSION=8"],
      "cflags!": ["-fno-exceptions", "-O3"],
      "cflags_cc!": ["-fno-exceptions", "-std=gnu++1y", "-std=gnu++17", "-O3"],
      "cflags": ["-O2", "-Wall", "-Wextra"],
      "cflags_cc": ["-std=c++17", "-O2", "-Wall", "-Wextra", "-fno-exceptions"]
    }
  ]
}
