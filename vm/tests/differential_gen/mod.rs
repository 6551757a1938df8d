//! A generator of random well-typed RPSL programs (source text) for the differential test.
//!
//! Every program declares the same struct, nodes and helper function, then an entry `main` with
//! random statements over a fixed set of typed variables, so that every generated expression is
//! well typed by construction. Loops have constant bounds; array indices are mostly in range.

/// A small deterministic PRNG (SplitMix64).
pub struct SplitMix(u64);

impl SplitMix {
    /// A generator from a seed.
    pub fn new(seed: u64) -> SplitMix {
        SplitMix(seed)
    }

    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// True with probability `1 / n`.
    pub fn one_in(&mut self, n: u64) -> bool {
        self.below(n) == 0
    }
}

const PRELUDE: &str = r#"
struct Item { uint a; float b; int c; float2 d; };

compute node Work([readwrite(cs)] texture t, uint a, int b, float c, float4 v, uint2 w);
graphics node Draw([readwrite(rendertarget)] texture rt : SV_Target0, Item item, float3 f);
compute node Copy([readonly(cs)] texture src, [writeonly(cs)] texture dst, uint arr[4]);

float helper(float x, uint n, inout int acc)
{
    acc = acc + (int)n;
    if (n > 3u)
        return x * 0.5f + (float)n;
    return x - (float)acc;
}
"#;

/// The scalar types expressions are generated for.
#[derive(Clone, Copy, PartialEq)]
enum Ty {
    Uint,
    Int,
    Float,
}

/// Builds one program.
pub struct ProgramGen<'r> {
    rng: &'r mut SplitMix,
    out: String,
    indent: usize,
    loop_depth: usize,
    loop_vars: Vec<String>,
    statements_left: u32,
}

impl<'r> ProgramGen<'r> {
    /// A generator drawing from `rng`.
    pub fn new(rng: &'r mut SplitMix) -> ProgramGen<'r> {
        ProgramGen {
            rng,
            out: String::new(),
            indent: 1,
            loop_depth: 0,
            loop_vars: Vec::new(),
            statements_left: 40,
        }
    }

    /// The whole program text.
    pub fn program(mut self) -> String {
        self.out.push_str(PRELUDE);
        self.out.push_str(
            "\nexport void main([readonly(present)] texture backbuffer, uint seed, int sx, float fx, uint s2, out uint ru, out int ri, out float rf)\n{\n",
        );
        self.out.push_str(
            "    uint u0 = seed; uint u1 = s2; uint u2 = 7u; int i0 = sx; int i1 = -3; float f0 = fx; float f1 = 1.5f;\n",
        );
        self.out.push_str(
            "    float4 v0 = float4(f0, 2.0f, -1.0f, 0.25f); float4 v1 = float4(1, 2, 3, 4); uint2 w0 = uint2(u0, 9u);\n",
        );
        self.out.push_str("    uint arr[4] = { 1u, 2u, 3u, 4u }; float farr[3]; Item item; item.a = u2; item.b = f1; item.c = i1; item.d = float2(0.5f, f0);\n");
        self.out.push_str("    texture t = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 64u + (u0 & 63u), 32u, 4u, 2u);\n");
        self.out
            .push_str("    float3x3 m0 = float3x3(v0.xyz, v1.xyz, float3(f0, f1, 0.5f));\n");
        let n = 4 + self.rng.below(10);
        for _ in 0..n {
            self.statement();
        }
        self.out.push_str(
            "    ru = u0 ^ u1 ^ arr[2];\n    ri = i0 + i1;\n    rf = f0 + v0.y + item.b + m0._m21;\n}\n",
        );
        self.out
    }

    fn line(&mut self, text: &str) {
        for _ in 0..self.indent {
            self.out.push_str("    ");
        }
        self.out.push_str(text);
        self.out.push('\n');
    }

    fn statement(&mut self) {
        if self.statements_left == 0 {
            return;
        }
        self.statements_left -= 1;
        match self.rng.below(15) {
            0 | 1 => {
                let var = self.pick(&["u0", "u1", "u2"]);
                let e = self.expr(Ty::Uint, 3);
                self.line(&format!("{var} = {e};"));
            }
            2 => {
                let var = self.pick(&["i0", "i1"]);
                let e = self.expr(Ty::Int, 3);
                self.line(&format!("{var} = {e};"));
            }
            3 => {
                let var = self.pick(&["f0", "f1"]);
                let e = self.expr(Ty::Float, 3);
                self.line(&format!("{var} = {e};"));
            }
            4 => {
                let lane = self.pick(&["x", "y", "z", "w"]);
                let e = self.expr(Ty::Float, 2);
                let swz = self.pick(&["xyzw", "wzyx", "xxyy", "zwxy"]);
                self.line(&format!("v0.{lane} = {e};"));
                self.line(&format!("v1 = v1 * 0.5f + v0.{swz};"));
            }
            5 => {
                let index = self.index(4);
                let e = self.expr(Ty::Uint, 2);
                self.line(&format!("arr[{index}] = {e};"));
            }
            6 => {
                let index = self.index(3);
                let e = self.expr(Ty::Float, 2);
                self.line(&format!("farr[{index}] = {e};"));
            }
            7 => {
                let field = self.rng.below(4);
                let text = match field {
                    0 => format!("item.a = {};", self.expr(Ty::Uint, 2)),
                    1 => format!("item.b = {};", self.expr(Ty::Float, 2)),
                    2 => format!("item.c = {};", self.expr(Ty::Int, 2)),
                    _ => format!("item.d = v0.zx * {};", self.expr(Ty::Float, 1)),
                };
                self.line(&text);
            }
            8 if self.loop_depth < 2 => {
                let var = format!("k{}", self.loop_depth);
                // Now and then a long loop, so that nested ones exhaust the step budget.
                let bound = if self.rng.one_in(12) {
                    700
                } else {
                    self.rng.below(6)
                };
                self.line(&format!("for (uint {var} = 0; {var} < {bound}u; {var}++)"));
                self.line("{");
                self.indent += 1;
                self.loop_depth += 1;
                self.loop_vars.push(var);
                for _ in 0..1 + self.rng.below(3) {
                    self.statement();
                }
                if self.rng.one_in(4) {
                    let c = self.cond(1);
                    self.line(&format!("if ({c}) break;"));
                }
                self.loop_vars.pop();
                self.loop_depth -= 1;
                self.indent -= 1;
                self.line("}");
            }
            9 => {
                let c = self.cond(2);
                self.line(&format!("if ({c})"));
                self.line("{");
                self.indent += 1;
                self.statement();
                self.indent -= 1;
                self.line("}");
                if self.rng.one_in(2) {
                    self.line("else");
                    self.line("{");
                    self.indent += 1;
                    self.statement();
                    self.indent -= 1;
                    self.line("}");
                }
            }
            10 => {
                let view = self.view();
                let (a, b, c) = (
                    self.expr(Ty::Uint, 2),
                    self.expr(Ty::Int, 2),
                    self.expr(Ty::Float, 2),
                );
                self.line(&format!("Work({view}, {a}, {b}, {c}, v0 + v1, w0);"));
            }
            11 => {
                let view = self.view();
                let f = self.expr(Ty::Float, 1);
                self.line(&format!("Draw({view}, item, float3({f}, v1.y, v0.w));"));
            }
            12 => {
                let (src, dst) = (self.view(), self.view());
                self.line(&format!("Copy({src}, {dst}, arr);"));
            }
            13 => {
                // Matrix members (both styles, several at once) and whole-matrix products.
                let text = match self.rng.below(4) {
                    0 => {
                        let (r, c) = (self.rng.below(3), self.rng.below(3));
                        format!("m0._m{r}{c} = {};", self.expr(Ty::Float, 2))
                    }
                    1 => {
                        let member = self.pick(&["_11_22", "_m01_m10", "_13_31", "_m20_m02"]);
                        let (a, b) = (self.expr(Ty::Float, 1), self.expr(Ty::Float, 1));
                        format!("m0.{member} = float2({a}, {b});")
                    }
                    2 => "m0 = mul(m0, transpose(m0)) * 0.125f;".to_string(),
                    _ => format!("v0.xyz = mul(m0, v1.zyx) + {};", self.expr(Ty::Float, 1)),
                };
                self.line(&text);
            }
            _ => {
                let n = self.expr(Ty::Uint, 1);
                let x = self.expr(Ty::Float, 2);
                self.line(&format!("f1 = helper({x}, {n} & 7u, i1);"));
            }
        }
    }

    fn pick(&mut self, options: &[&str]) -> String {
        options[self.rng.below(options.len() as u64) as usize].to_string()
    }

    /// An index expression for an array of `len`, out of range now and then.
    fn index(&mut self, len: u64) -> String {
        let e = self.expr(Ty::Uint, 1);
        // Mixing in a variable keeps the frontend from folding the index to a constant.
        if self.rng.one_in(8) {
            format!("(u1 ^ {e}) % {}u", len + 2)
        } else if self.rng.one_in(12) {
            let i = self.expr(Ty::Int, 1);
            format!("(i0 + {i})")
        } else {
            format!("(u0 ^ {e}) % {len}u")
        }
    }

    fn view(&mut self) -> String {
        match self.rng.below(5) {
            0 => "t".to_string(),
            1 => format!("t.mips({}u)", self.rng.below(4)),
            2 => format!(
                "t.mips({}u, {})",
                self.rng.below(3),
                self.rng.below(3) as i64 - 1
            ),
            3 => format!("t.array({}u)", self.rng.below(2)),
            _ => "t.mips(1u).array(0u, 1)".to_string(),
        }
    }

    fn cond(&mut self, depth: u32) -> String {
        match self.rng.below(if depth == 0 { 4 } else { 7 }) {
            0 => format!("{} < {}", self.expr(Ty::Uint, 1), self.expr(Ty::Uint, 1)),
            1 => format!("{} >= {}", self.expr(Ty::Int, 1), self.expr(Ty::Int, 1)),
            2 => format!("{} > {}", self.expr(Ty::Float, 1), self.expr(Ty::Float, 1)),
            3 => format!("{} == {}", self.expr(Ty::Uint, 1), self.expr(Ty::Uint, 1)),
            4 => format!("!({})", self.cond(depth - 1)),
            5 => format!("({}) && ({})", self.cond(depth - 1), self.cond(depth - 1)),
            _ => format!(
                "({}) || isnan({})",
                self.cond(depth - 1),
                self.expr(Ty::Float, 1)
            ),
        }
    }

    fn leaf(&mut self, ty: Ty) -> String {
        let loop_var = (!self.loop_vars.is_empty() && self.rng.one_in(3))
            .then(|| self.loop_vars[self.rng.below(self.loop_vars.len() as u64) as usize].clone());
        match ty {
            Ty::Uint => match self.rng.below(8) {
                0 => format!("{}u", self.rng.next() as u32),
                1 => format!("{}u", self.rng.below(40)),
                2 => "w0.y".to_string(),
                3 => "item.a".to_string(),
                4 => loop_var.unwrap_or_else(|| "u2".to_string()),
                _ => self.pick(&["u0", "u1", "u2"]),
            },
            Ty::Int => match self.rng.below(7) {
                0 => format!("{}", self.rng.below(100) as i64 - 50),
                1 => "(-2147483647 - 1)".to_string(),
                2 => "item.c".to_string(),
                3 => "-1".to_string(),
                _ => self.pick(&["i0", "i1"]),
            },
            Ty::Float => match self.rng.below(9) {
                0 => format!("{:.3}f", (self.rng.next() % 20000) as f32 / 100.0 - 100.0),
                1 => "v0.x".to_string(),
                2 => "v1.w".to_string(),
                3 => "item.b".to_string(),
                4 => "item.d.y".to_string(),
                5 => "farr[1]".to_string(),
                _ => self.pick(&["f0", "f1"]),
            },
        }
    }

    fn expr(&mut self, ty: Ty, depth: u32) -> String {
        if depth == 0 || self.rng.one_in(3) {
            return self.leaf(ty);
        }
        let d = depth - 1;
        match ty {
            Ty::Uint => match self.rng.below(18) {
                16 => format!("f32tof16({})", self.expr(Ty::Float, d)),
                17 => format!(
                    "msad4({}, uint2({}, u1), uint4(u2, {}, 3u, u0)).z",
                    self.expr(ty, d),
                    self.expr(ty, d),
                    self.expr(ty, d)
                ),
                0 => format!("({} + {})", self.expr(ty, d), self.expr(ty, d)),
                1 => format!("({} * {})", self.expr(ty, d), self.expr(ty, d)),
                2 => format!("({} - {})", self.expr(ty, d), self.expr(ty, d)),
                3 => format!("({} / {})", self.expr(ty, d), self.expr(ty, d)),
                4 => format!("({} % ({} & 15u))", self.expr(ty, d), self.expr(ty, d)),
                5 => format!("({} << {})", self.expr(ty, d), self.expr(ty, d)),
                6 => format!("({} >> {})", self.expr(ty, d), self.expr(ty, d)),
                7 => format!("({} ^ {})", self.expr(ty, d), self.expr(ty, d)),
                8 => format!("(uint){}", self.expr(Ty::Int, d)),
                9 => format!("(uint){}", self.expr(Ty::Float, d)),
                10 => format!("countbits({})", self.expr(ty, d)),
                11 => format!("firstbithigh({})", self.expr(ty, d)),
                12 => format!("min({}, {})", self.expr(ty, d), self.expr(ty, d)),
                13 => format!("asuint({})", self.expr(Ty::Float, d)),
                14 => format!("arr[{}]", self.index(4)),
                _ => format!(
                    "({} ? {} : {})",
                    self.cond(1),
                    self.expr(ty, d),
                    self.expr(ty, d)
                ),
            },
            Ty::Int => match self.rng.below(13) {
                12 => format!(
                    "mul(int2({}, i1), int2x2({}, 3, -7, i0)).y",
                    self.expr(ty, d),
                    self.expr(ty, d)
                ),
                0 => format!("({} + {})", self.expr(ty, d), self.expr(ty, d)),
                1 => format!("({} * {})", self.expr(ty, d), self.expr(ty, d)),
                2 => format!("({} / {})", self.expr(ty, d), self.expr(ty, d)),
                3 => format!("({} % {})", self.expr(ty, d), self.expr(ty, d)),
                4 => format!("(- {})", self.expr(ty, d)),
                5 => format!("abs({})", self.expr(ty, d)),
                6 => format!("(int){}", self.expr(Ty::Uint, d)),
                7 => format!("(int){}", self.expr(Ty::Float, d)),
                8 => format!("({} >> {})", self.expr(ty, d), self.expr(Ty::Int, d)),
                9 => format!("sign({})", self.expr(Ty::Float, d)),
                10 => format!("clamp({}, -5, 5)", self.expr(ty, d)),
                _ => format!("max({}, {})", self.expr(ty, d), self.expr(ty, d)),
            },
            Ty::Float => match self.rng.below(38) {
                24 => format!("mul({}, {})", self.expr(ty, d), self.expr(ty, d)),
                25 => format!("mul(v0.xyz, m0).{}", self.pick(&["x", "y", "z"])),
                26 => format!("mul(m0, v1.xyz).{}", self.pick(&["x", "y", "z"])),
                27 => "determinant(m0)".to_string(),
                28 => format!(
                    "determinant(float2x2({}, {}, v1.z, {}))",
                    self.expr(ty, d),
                    self.expr(ty, d),
                    self.expr(ty, d)
                ),
                29 => format!("m0.{}", self.pick(&["_m00", "_12", "_m21", "_33"])),
                30 => format!("degrees({})", self.expr(ty, d)),
                31 => format!("radians({})", self.expr(ty, d)),
                32 => format!("log10({})", self.expr(ty, d)),
                33 => format!("ldexp({}, {})", self.expr(ty, d), self.expr(ty, d)),
                34 => format!("refract(v0.xyz, normalize(v1.xyz), {}).y", self.expr(ty, d)),
                35 => format!("lit({}, {}, 2.0f).z", self.expr(ty, d), self.expr(ty, d)),
                36 => format!("f16tof32({})", self.expr(Ty::Uint, d)),
                37 => format!("modf({}, farr[2])", self.expr(ty, d)),
                0 => format!("({} + {})", self.expr(ty, d), self.expr(ty, d)),
                1 => format!("({} * {})", self.expr(ty, d), self.expr(ty, d)),
                2 => format!("({} - {})", self.expr(ty, d), self.expr(ty, d)),
                3 => format!("({} / {})", self.expr(ty, d), self.expr(ty, d)),
                4 => format!("sqrt({})", self.expr(ty, d)),
                5 => format!("sin({})", self.expr(ty, d)),
                6 => format!("cos({})", self.expr(ty, d)),
                7 => format!("exp({})", self.expr(ty, d)),
                8 => format!("log({})", self.expr(ty, d)),
                9 => format!("pow({}, {})", self.expr(ty, d), self.expr(ty, d)),
                10 => format!("floor({})", self.expr(ty, d)),
                11 => format!("frac({})", self.expr(ty, d)),
                12 => format!(
                    "lerp({}, {}, {})",
                    self.expr(ty, d),
                    self.expr(ty, d),
                    self.expr(ty, d)
                ),
                13 => format!("min({}, {})", self.expr(ty, d), self.expr(ty, d)),
                14 => format!("max({}, {})", self.expr(ty, d), self.expr(ty, d)),
                15 => format!("(float){}", self.expr(Ty::Uint, d)),
                16 => format!("(float){}", self.expr(Ty::Int, d)),
                17 => format!("asfloat({})", self.expr(Ty::Uint, d)),
                18 => "dot(v0, v1)".to_string(),
                19 => "length(v0.xyz)".to_string(),
                20 => "normalize(v1).z".to_string(),
                21 => format!("({} % {})", self.expr(ty, d), self.expr(ty, d)),
                22 => format!("clamp({}, -1.0f, 1.0f)", self.expr(ty, d)),
                _ => format!("atan2({}, {})", self.expr(ty, d), self.expr(ty, d)),
            },
        }
    }
}
