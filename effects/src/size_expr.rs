//! Size expressions of `//!WIDTH` and `//!HEIGHT`: arithmetic (`+ - * /`, unary minus,
//! parentheses, numbers) over `INPUT_WIDTH`, `INPUT_HEIGHT`, `OUTPUT_WIDTH` and `OUTPUT_HEIGHT`,
//! evaluated in double precision and rounded to the nearest integer.
//!
//! ```
//! use rpsl_effects::{SizeExpr, SizeInputs};
//! let expr = SizeExpr::parse("INPUT_WIDTH * 2 + (OUTPUT_HEIGHT - 1) / 3").unwrap();
//! let inputs = SizeInputs { input: [100, 50], output: Some([300, 151]) };
//! assert_eq!(expr.evaluate(&inputs), Ok(250));
//! assert!(expr.uses_output());
//! ```

use std::fmt;

/// A size the expressions may name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SizeVariable {
    /// `INPUT_WIDTH`.
    InputWidth,
    /// `INPUT_HEIGHT`.
    InputHeight,
    /// `OUTPUT_WIDTH`.
    OutputWidth,
    /// `OUTPUT_HEIGHT`.
    OutputHeight,
}

impl SizeVariable {
    fn from_name(name: &str) -> Option<SizeVariable> {
        Some(match name {
            "INPUT_WIDTH" => SizeVariable::InputWidth,
            "INPUT_HEIGHT" => SizeVariable::InputHeight,
            "OUTPUT_WIDTH" => SizeVariable::OutputWidth,
            "OUTPUT_HEIGHT" => SizeVariable::OutputHeight,
            _ => return None,
        })
    }

    fn is_output(self) -> bool {
        matches!(self, SizeVariable::OutputWidth | SizeVariable::OutputHeight)
    }
}

#[derive(Clone, Debug, PartialEq)]
enum Node {
    Number(f64),
    Variable(SizeVariable),
    Negate(Box<Node>),
    Binary(char, Box<Node>, Box<Node>),
}

/// A parsed size expression (keeps its text for messages).
#[derive(Clone, Debug, PartialEq)]
pub struct SizeExpr {
    text: String,
    root: Node,
}

/// Why an expression did not parse: a message and the byte offset in the expression text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SizeSyntaxError {
    /// What is wrong.
    pub message: String,
    /// Byte offset of the fault in the expression.
    pub offset: usize,
}

/// The sizes an expression is evaluated against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SizeInputs {
    /// The input image's width and height.
    pub input: [u32; 2],
    /// The effect's output size; `None` while it is itself being computed.
    pub output: Option<[u32; 2]>,
}

/// Why an expression has no valid value.
#[derive(Clone, Debug, PartialEq)]
pub enum SizeEvalError {
    /// The expression names `OUTPUT_WIDTH`/`OUTPUT_HEIGHT` where no output size is known.
    OutputUnknown {
        /// The expression.
        expr: String,
    },
    /// The value, rounded, is below 1, above [`MAX_TEXTURE_DIMENSION`], or not a number.
    OutOfRange {
        /// The expression.
        expr: String,
        /// Its unrounded value.
        value: f64,
    },
}

/// The largest width or height a texture may get (Vulkan's guaranteed `maxImageDimension2D`
/// is 4096; 16384 is what desktop GPUs and lavapipe offer).
pub const MAX_TEXTURE_DIMENSION: u32 = 16384;

impl fmt::Display for SizeEvalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SizeEvalError::OutputUnknown { expr } => write!(
                f,
                "`{expr}` uses the output size, which is not known here (give the effect an output size)"
            ),
            SizeEvalError::OutOfRange { expr, value } => write!(
                f,
                "`{expr}` is {value}, outside 1..={MAX_TEXTURE_DIMENSION} once rounded"
            ),
        }
    }
}

impl std::error::Error for SizeEvalError {}

impl SizeExpr {
    /// Parses `text`.
    pub fn parse(text: &str) -> Result<SizeExpr, SizeSyntaxError> {
        let mut parser = ExprParser {
            text,
            bytes: text.as_bytes(),
            pos: 0,
            depth: 0,
        };
        parser.skip_space();
        if parser.pos == text.len() {
            return Err(SizeSyntaxError {
                message: "expected a size expression".to_string(),
                offset: 0,
            });
        }
        let root = parser.sum()?;
        parser.skip_space();
        if parser.pos != text.len() {
            return Err(parser.error(format!(
                "unexpected `{}` in size expression",
                parser.rest_char()
            )));
        }
        Ok(SizeExpr {
            text: text.trim().to_string(),
            root,
        })
    }

    /// The expression as written (trimmed).
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Whether it names `OUTPUT_WIDTH` or `OUTPUT_HEIGHT`.
    pub fn uses_output(&self) -> bool {
        fn walk(node: &Node) -> bool {
            match node {
                Node::Number(_) => false,
                Node::Variable(variable) => variable.is_output(),
                Node::Negate(inner) => walk(inner),
                Node::Binary(_, left, right) => walk(left) || walk(right),
            }
        }
        walk(&self.root)
    }

    /// The value, rounded to the nearest integer (halves away from zero), checked to lie in
    /// 1..=[`MAX_TEXTURE_DIMENSION`].
    pub fn evaluate(&self, inputs: &SizeInputs) -> Result<u32, SizeEvalError> {
        let value = self.value(&self.root, inputs)?;
        let rounded = value.round();
        if !(1.0..=MAX_TEXTURE_DIMENSION as f64).contains(&rounded) {
            return Err(SizeEvalError::OutOfRange {
                expr: self.text.clone(),
                value,
            });
        }
        Ok(rounded as u32)
    }

    fn value(&self, node: &Node, inputs: &SizeInputs) -> Result<f64, SizeEvalError> {
        Ok(match node {
            Node::Number(value) => *value,
            Node::Variable(variable) => {
                let output = || {
                    inputs.output.ok_or_else(|| SizeEvalError::OutputUnknown {
                        expr: self.text.clone(),
                    })
                };
                match variable {
                    SizeVariable::InputWidth => inputs.input[0] as f64,
                    SizeVariable::InputHeight => inputs.input[1] as f64,
                    SizeVariable::OutputWidth => output()?[0] as f64,
                    SizeVariable::OutputHeight => output()?[1] as f64,
                }
            }
            Node::Negate(inner) => -self.value(inner, inputs)?,
            Node::Binary(op, left, right) => {
                let left = self.value(left, inputs)?;
                let right = self.value(right, inputs)?;
                match op {
                    '+' => left + right,
                    '-' => left - right,
                    '*' => left * right,
                    _ => left / right,
                }
            }
        })
    }
}

/// Nesting limit of parentheses and unary minus (keeps recursion bounded on hostile input).
const MAX_DEPTH: u32 = 64;

struct ExprParser<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    depth: u32,
}

impl ExprParser<'_> {
    fn error(&self, message: String) -> SizeSyntaxError {
        SizeSyntaxError {
            message,
            offset: self.pos,
        }
    }

    fn rest_char(&self) -> char {
        self.text[self.pos..].chars().next().unwrap_or(' ')
    }

    fn skip_space(&mut self) {
        while self.pos < self.bytes.len() && self.bytes[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
    }

    fn peek_operator(&mut self, operators: &[u8]) -> Option<char> {
        self.skip_space();
        let byte = *self.bytes.get(self.pos)?;
        operators.contains(&byte).then(|| {
            self.pos += 1;
            byte as char
        })
    }

    fn sum(&mut self) -> Result<Node, SizeSyntaxError> {
        let mut left = self.product()?;
        while let Some(op) = self.peek_operator(b"+-") {
            let right = self.product()?;
            left = Node::Binary(op, Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn product(&mut self) -> Result<Node, SizeSyntaxError> {
        let mut left = self.unary()?;
        while let Some(op) = self.peek_operator(b"*/") {
            let right = self.unary()?;
            left = Node::Binary(op, Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn unary(&mut self) -> Result<Node, SizeSyntaxError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.error("size expression nests too deeply".to_string()));
        }
        let node = match self.peek_operator(b"-+") {
            Some('-') => Node::Negate(Box::new(self.unary()?)),
            Some(_) => self.unary()?,
            None => self.primary()?,
        };
        self.depth -= 1;
        Ok(node)
    }

    fn primary(&mut self) -> Result<Node, SizeSyntaxError> {
        self.skip_space();
        let start = self.pos;
        let Some(&byte) = self.bytes.get(start) else {
            return Err(self.error("size expression ends early".to_string()));
        };
        if byte == b'(' {
            self.pos += 1;
            let inner = self.sum()?;
            self.skip_space();
            if self.bytes.get(self.pos) != Some(&b')') {
                return Err(self.error("expected `)` in size expression".to_string()));
            }
            self.pos += 1;
            return Ok(inner);
        }
        if byte.is_ascii_digit() || byte == b'.' {
            while self.pos < self.bytes.len()
                && (self.bytes[self.pos].is_ascii_digit() || self.bytes[self.pos] == b'.')
            {
                self.pos += 1;
            }
            let literal = &self.text[start..self.pos];
            return match literal.parse::<f64>() {
                Ok(value) => Ok(Node::Number(value)),
                Err(_) => {
                    self.pos = start;
                    Err(self.error(format!("`{literal}` is not a number")))
                }
            };
        }
        if byte.is_ascii_alphabetic() || byte == b'_' {
            while self.pos < self.bytes.len()
                && (self.bytes[self.pos].is_ascii_alphanumeric() || self.bytes[self.pos] == b'_')
            {
                self.pos += 1;
            }
            let name = &self.text[start..self.pos];
            return match SizeVariable::from_name(name) {
                Some(variable) => Ok(Node::Variable(variable)),
                None => {
                    self.pos = start;
                    Err(self.error(format!(
                        "unknown name `{name}` in size expression (expected INPUT_WIDTH, \
                         INPUT_HEIGHT, OUTPUT_WIDTH or OUTPUT_HEIGHT)"
                    )))
                }
            };
        }
        Err(self.error(format!(
            "unexpected `{}` in size expression",
            self.rest_char()
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval(text: &str, input: [u32; 2], output: Option<[u32; 2]>) -> Result<u32, SizeEvalError> {
        SizeExpr::parse(text)
            .unwrap()
            .evaluate(&SizeInputs { input, output })
    }

    #[test]
    fn precedence_parentheses_and_rounding() {
        assert_eq!(eval("INPUT_WIDTH", [7, 9], None), Ok(7));
        assert_eq!(eval(" INPUT_WIDTH * 1 * 2", [7, 9], None), Ok(14));
        assert_eq!(eval("INPUT_HEIGHT + 100", [7, 9], None), Ok(109));
        assert_eq!(eval("2 + 3 * INPUT_WIDTH", [7, 9], None), Ok(23));
        assert_eq!(eval("(2 + 3) * INPUT_WIDTH", [7, 9], None), Ok(35));
        assert_eq!(eval("INPUT_WIDTH / 2", [7, 9], None), Ok(4)); // 3.5 rounds up
        assert_eq!(eval("INPUT_WIDTH / 3", [7, 9], None), Ok(2)); // 2.33 rounds down
        assert_eq!(eval("INPUT_WIDTH * 1.5", [7, 9], None), Ok(11)); // 10.5
        assert_eq!(eval("-(-INPUT_WIDTH) - 1", [7, 9], None), Ok(6));
        assert_eq!(
            eval("OUTPUT_WIDTH - INPUT_HEIGHT", [7, 9], Some([20, 1])),
            Ok(11)
        );
        assert_eq!(eval("16 - 8 - 4", [7, 9], None), Ok(4)); // left-associative
        assert_eq!(eval("64 / 4 / 2", [7, 9], None), Ok(8));
    }

    #[test]
    fn evaluation_errors() {
        assert_eq!(
            eval("OUTPUT_HEIGHT", [7, 9], None),
            Err(SizeEvalError::OutputUnknown {
                expr: "OUTPUT_HEIGHT".to_string()
            })
        );
        let error = eval("INPUT_WIDTH - 7", [7, 9], None).unwrap_err();
        assert_eq!(
            error.to_string(),
            "`INPUT_WIDTH - 7` is 0, outside 1..=16384 once rounded"
        );
        assert!(matches!(
            eval("INPUT_WIDTH / 0", [7, 9], None),
            Err(SizeEvalError::OutOfRange { .. })
        ));
        assert!(matches!(
            eval("0 / 0", [7, 9], None),
            Err(SizeEvalError::OutOfRange { .. })
        ));
        assert_eq!(
            eval("INPUT_WIDTH * 3000", [7, 9], None)
                .unwrap_err()
                .to_string(),
            "`INPUT_WIDTH * 3000` is 21000, outside 1..=16384 once rounded"
        );
    }

    #[test]
    fn syntax_errors_point_at_the_fault() {
        let error = |text: &str| SizeExpr::parse(text).unwrap_err();
        assert_eq!(
            error("INPUT_WIDTH * SCALE"),
            SizeSyntaxError {
                message: "unknown name `SCALE` in size expression (expected INPUT_WIDTH, \
                          INPUT_HEIGHT, OUTPUT_WIDTH or OUTPUT_HEIGHT)"
                    .to_string(),
                offset: 14
            }
        );
        assert_eq!(
            error("(INPUT_WIDTH").message,
            "expected `)` in size expression"
        );
        assert_eq!(error("INPUT_WIDTH 2").offset, 12);
        assert_eq!(error("1.2.3").message, "`1.2.3` is not a number");
        assert_eq!(error("INPUT_WIDTH *").message, "size expression ends early");
        assert_eq!(error("   ").message, "expected a size expression");
        assert_eq!(error("2 % 3").message, "unexpected `%` in size expression");
        let deep = format!("{}1{}", "(".repeat(100), ")".repeat(100));
        assert_eq!(error(&deep).message, "size expression nests too deeply");
    }
}
