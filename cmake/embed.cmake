# Turns a data file into a C source that defines
#   const unsigned char <NAME>[]; const unsigned long <NAME>_size;
# (the data is followed by one NUL byte that the size does not count).
# Run as: cmake -DIN=file -DOUT=file.c -DNAME=sym -P embed.cmake
file(READ "${IN}" hex HEX)
string(LENGTH "${hex}" n)
math(EXPR size "${n} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," body "${hex}")
string(REGEX REPLACE "((0x[0-9a-f][0-9a-f],){16})" "\\1\n" body "${body}")
file(WRITE "${OUT}" "/* Generated from ${IN} by cmake/embed.cmake; do not edit. */\n"
  "const unsigned char ${NAME}[] = {\n${body}0x00};\n"
  "const unsigned long ${NAME}_size = ${size};\n")
