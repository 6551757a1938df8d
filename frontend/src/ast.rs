//! The abstract syntax tree produced by the parser.
