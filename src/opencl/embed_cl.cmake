# Turns one OpenCL C file into a C source defining a NUL-terminated char
# array. Hex bytes rather than a string literal, so no quote, backslash,
# trigraph or line-length limit of the C compiler can corrupt the kernel.
# Usage: cmake -DIN=file.cl -DOUT=file.c -DNAME=symbol -P embed_cl.cmake
if(NOT IN OR NOT OUT OR NOT NAME)
  message(FATAL_ERROR "embed_cl.cmake needs IN, OUT and NAME")
endif()
file(READ "${IN}" _hex HEX)
string(LENGTH "${_hex}" _hexlen)
math(EXPR _bytes "${_hexlen} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," _body "${_hex}")
# Break the initializer into lines of 16 bytes to keep the file readable.
string(REGEX REPLACE "((0x[0-9a-f][0-9a-f],){16})" "\\1\n" _body "${_body}")
file(WRITE "${OUT}.tmp"
  "/* Generated from ${IN} by embed_cl.cmake: do not edit. */\n"
  "#include <stddef.h>\n"
  "const char ${NAME}[] = {\n${_body}0x00};\n"
  "const size_t ${NAME}_len = ${_bytes};\n")
file(RENAME "${OUT}.tmp" "${OUT}")
