#version 450
void main() { gl_FragDepth = 0.25; }
