//! Calls: overload resolution over user functions, prelude built-ins and node declarations (with
//! default arguments), HLSL intrinsics, constructors and functional casts, and view methods.

use std::cmp::Ordering;

use super::scope::Resolved;
use super::{suggest, Checker, SigId, SigParam, Target};
use crate::ast;
use crate::builtins;
use crate::diagnostic::Diagnostic;
use crate::hir::{Arg, Callee, Expr, ExprKind, ParamDirection, Place};
use crate::intrinsics;
use crate::source::Span;
use crate::types::{self, Conversion, Type};

/// One checked call argument before it is matched to a parameter.
struct CallArg {
    /// The value (for `in` parameters).
    value: Expr,
    /// The place, when the argument is assignable (for `out`/`inout` parameters).
    place: Option<Place>,
    span: Span,
}

impl Checker<'_> {
    fn check_args(&mut self, args: &[ast::Expr]) -> Vec<CallArg> {
        args.iter()
            .map(|arg| {
                let value = self.check_expr(arg);
                let place = if is_place_syntax(arg) && value.ty != Type::Error {
                    // Resolve the place quietly: only non-const locals and paths into them.
                    let count = self.diags.len();
                    let place = self.check_place(arg);
                    self.diags.truncate(count);
                    place
                } else {
                    None
                };
                CallArg {
                    value,
                    place,
                    span: arg.span,
                }
            })
            .collect()
    }

    /// `name(args)`: a constructor / functional cast, a function, a node, or an intrinsic.
    pub fn check_call(
        &mut self,
        callee: &ast::Ident,
        args: &[ast::Expr],
        is_async: bool,
        span: Span,
    ) -> Expr {
        let name = callee.name.as_str();
        let resolved = self.lookup(name);
        if let Some(Resolved::Type(ty)) = &resolved {
            if is_async {
                self.error(span, "`async` can only be used on node calls");
            }
            return self.check_construct(&ty.clone(), args, span);
        }
        if resolved.is_none() {
            if let Some(ty) = types::parse_builtin_type_name(name) {
                if is_async {
                    self.error(span, "`async` can only be used on node calls");
                }
                return self.check_construct(&ty, args, span);
            }
        }
        let call_args = self.check_args(args);
        match resolved {
            Some(Resolved::Callables(sigs)) => {
                self.call_overloads(name, &sigs, call_args, is_async, span)
            }
            Some(Resolved::Local(_) | Resolved::Global(_) | Resolved::Enumerator(..)) => {
                self.error(callee.span, format!("`{name}` is not a function"));
                Expr::error(span)
            }
            _ => {
                let types: Vec<Type> = call_args.iter().map(|a| a.value.ty.clone()).collect();
                match intrinsics::resolve_intrinsic_by_name(name, &types) {
                    Some(result) => {
                        if is_async {
                            self.error(span, "`async` can only be used on node calls");
                        }
                        self.call_intrinsic(result, call_args, span)
                    }
                    None => {
                        let mut diag =
                            Diagnostic::error(callee.span, format!("unknown function `{name}`"));
                        let callables = self
                            .symbols
                            .iter()
                            .filter(|(_, s)| matches!(s, super::Symbol::Callables(_)))
                            .map(|(n, _)| n.as_str())
                            .chain(intrinsics::Intrinsic::ALL.iter().map(|i| i.name()));
                        if let Some(help) = suggest::did_you_mean(name, callables) {
                            diag = diag.with_help(help);
                        }
                        self.report(diag);
                        Expr::error(span)
                    }
                }
            }
        }
    }

    fn call_intrinsic(
        &mut self,
        result: Result<intrinsics::IntrinsicCall, intrinsics::IntrinsicError>,
        args: Vec<CallArg>,
        span: Span,
    ) -> Expr {
        let any_error = args.iter().any(|a| a.value.ty == Type::Error);
        match result {
            Ok(call) => {
                if let Some(warning) = call.warning {
                    self.warning(span, warning.to_string());
                }
                let mut converted = Vec::with_capacity(args.len());
                for (index, (arg, ty)) in args.into_iter().zip(&call.params).enumerate() {
                    let Some(param) = call.intrinsic.out_param(index) else {
                        converted.push(Arg::In(self.convert_to(arg.value, ty)));
                        continue;
                    };
                    match arg.place {
                        Some(place) if place.ty == *ty || place.ty == Type::Error => {
                            converted.push(Arg::Out(place))
                        }
                        Some(place) => {
                            let (found, wanted) = (self.show(&place.ty), self.show(ty));
                            self.error(
                                arg.span,
                                format!("argument for `out` parameter `{param}` must have type `{wanted}`, found `{found}`"),
                            );
                            return Expr::error(span);
                        }
                        None => {
                            self.error(
                                arg.span,
                                format!(
                                    "argument for `out` parameter `{param}` must be assignable"
                                ),
                            );
                            return Expr::error(span);
                        }
                    }
                }
                let args = converted;
                let kind = ExprKind::Call {
                    callee: Callee::Intrinsic(call.intrinsic),
                    args,
                    is_async: false,
                };
                Expr::new(kind, call.result, span)
            }
            Err(err) => {
                if !any_error {
                    let message = err.message(&self.types);
                    self.error(span, message);
                }
                Expr::error(span)
            }
        }
    }

    /// The conversions needed to call `sig` with `args`, or `None` when it does not apply.
    fn match_signature(&self, sig_id: SigId, args: &[CallArg]) -> Option<Vec<Conversion>> {
        let sig = &self.sigs[sig_id.0 as usize];
        if !sig.accepts_arg_count(args.len()) {
            return None;
        }
        args.iter()
            .zip(&sig.params)
            .map(|(arg, param)| match param.direction {
                ParamDirection::In => types::conversion(&arg.value.ty, &param.ty),
                ParamDirection::Out | ParamDirection::InOut => {
                    let place = arg.place.as_ref()?;
                    (place.ty == param.ty || place.ty == Type::Error).then_some(Conversion::EXACT)
                }
            })
            .collect()
    }

    fn describe_sig(&self, sig_id: SigId) -> String {
        format!("candidate: {}", self.signature_text(sig_id))
    }

    /// A signature as it reads in a declaration: `node Blit(rtv dst, srv src)`.
    fn signature_text(&self, sig_id: SigId) -> String {
        let sig = &self.sigs[sig_id.0 as usize];
        let params: Vec<String> = sig
            .params
            .iter()
            .map(|p| {
                let dir = match p.direction {
                    ParamDirection::In => "",
                    ParamDirection::Out => "out ",
                    ParamDirection::InOut => "inout ",
                };
                let default = if p.default.is_some() { " = .." } else { "" };
                format!("{dir}{} {}{default}", self.show(&p.ty), p.name)
            })
            .collect();
        let prefix = if sig.is_node { "node " } else { "" };
        format!("{prefix}{}({})", sig.name, params.join(", "))
    }

    fn arg_list(&self, args: &[CallArg]) -> String {
        args.iter()
            .map(|a| format!("`{}`", self.show(&a.value.ty)))
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn call_overloads(
        &mut self,
        name: &str,
        sigs: &[SigId],
        args: Vec<CallArg>,
        is_async: bool,
        span: Span,
    ) -> Expr {
        if args.iter().any(|a| a.value.ty == Type::Error) {
            // An argument already failed; a resolution error now would only repeat it.
            let ret = self.unique_return_type(sigs);
            return Expr::new(ExprKind::Error, ret, span);
        }
        let viable: Vec<(SigId, Vec<Conversion>)> = sigs
            .iter()
            .filter_map(|&id| self.match_signature(id, &args).map(|c| (id, c)))
            .collect();
        let mut best: Vec<&(SigId, Vec<Conversion>)> = Vec::new();
        for candidate in &viable {
            let mut dominated = false;
            best.retain(
                |other| match types::compare_candidates(&candidate.1, &other.1) {
                    Ordering::Less => false,
                    Ordering::Greater => {
                        dominated = true;
                        true
                    }
                    Ordering::Equal => true,
                },
            );
            if !dominated {
                best.push(candidate);
            }
        }
        match best.as_slice() {
            [(sig, _)] => {
                let sig = *sig;
                self.finish_call(sig, args, is_async, span)
            }
            [] => {
                self.report_no_match(name, sigs, &args, span);
                let ret = self.unique_return_type(sigs);
                Expr::new(ExprKind::Error, ret, span)
            }
            several => {
                let mut diag = Diagnostic::error(
                    span,
                    format!(
                        "ambiguous call to `{name}` with arguments ({})",
                        self.arg_list(&args)
                    ),
                );
                for (sig, _) in several {
                    diag = diag.with_note(self.describe_sig(*sig));
                }
                self.report(diag);
                let ret = self.unique_return_type(sigs);
                Expr::new(ExprKind::Error, ret, span)
            }
        }
    }

    fn unique_return_type(&self, sigs: &[SigId]) -> Type {
        let first = sigs
            .first()
            .map(|s| self.sigs[s.0 as usize].ret.clone())
            .unwrap_or(Type::Error);
        if sigs.iter().all(|s| self.sigs[s.0 as usize].ret == first) {
            first
        } else {
            Type::Error
        }
    }

    fn report_no_match(&mut self, name: &str, sigs: &[SigId], args: &[CallArg], span: Span) {
        if let [only] = sigs {
            let sig = &self.sigs[only.0 as usize];
            if !sig.accepts_arg_count(args.len()) {
                let diag = self.arity_mismatch(*only, args, span);
                self.report(diag);
                return;
            }
            // Every argument that does not fit its parameter, each with its own diagnostic.
            let params = sig.params.clone();
            let declared_at = self.declaration_label(*only);
            for (arg, param) in args.iter().zip(&params) {
                if let Some(diag) = self.argument_mismatch(name, arg, param) {
                    let diag = match &declared_at {
                        Some((span, _)) => {
                            diag.with_secondary(*span, format!("`{name}` is declared here"))
                        }
                        None => diag,
                    };
                    self.report(diag);
                }
            }
            return;
        }
        let arity_fits = sigs
            .iter()
            .any(|s| self.sigs[s.0 as usize].accepts_arg_count(args.len()));
        let message = if arity_fits {
            format!(
                "no overload of `{name}` matches arguments ({})",
                self.arg_list(args)
            )
        } else {
            format!(
                "no overload of `{name}` takes {} argument{}",
                args.len(),
                if args.len() == 1 { "" } else { "s" }
            )
        };
        let mut diag = Diagnostic::error(span, message);
        for sig in sigs {
            diag = diag.with_note(self.describe_sig(*sig));
        }
        self.report(diag);
    }

    /// A call with too few or too many arguments for its only signature: the call, what is
    /// missing or extra, and where the callee is declared.
    fn arity_mismatch(&self, sig_id: SigId, args: &[CallArg], span: Span) -> Diagnostic {
        let sig = &self.sigs[sig_id.0 as usize];
        let total = sig.params.len();
        let required = sig.required_params();
        let count = if required == total {
            format!("{total} argument{}", plural(total))
        } else {
            format!("{required} to {total} arguments")
        };
        let name = &sig.name;
        let message = format!("`{name}` takes {count}, {} given", args.len());
        let mut diag = if args.len() < required {
            let missing: Vec<String> = sig.params[args.len()..required]
                .iter()
                .map(|p| format!("`{}` (`{}`)", p.name, self.show(&p.ty)))
                .collect();
            let noun = if missing.len() == 1 {
                "argument"
            } else {
                "arguments"
            };
            Diagnostic::error(span, message)
                .with_label(format!("missing {noun} for {}", missing.join(", ")))
        } else {
            let extra = &args[total..];
            let extra_span = extra[0].span.to(extra[extra.len() - 1].span);
            let noun = if extra.len() == 1 {
                "argument"
            } else {
                "arguments"
            };
            Diagnostic::error(extra_span, message)
                .with_label(format!("unexpected {noun}"))
                .with_help(format!("remove the extra {noun}"))
        };
        match self.declaration_label(sig_id) {
            Some((span, text)) => diag = diag.with_secondary(span, text),
            None => {
                diag = diag.with_note(format!(
                    "`{name}` is declared as `{}`",
                    self.signature_text(sig_id)
                ))
            }
        }
        diag
    }

    /// Where a user-declared callee is declared, with a label naming its parameters; `None`
    /// for built-ins of the prelude (file 0), whose source the user never wrote.
    fn declaration_label(&self, sig_id: SigId) -> Option<(Span, String)> {
        let sig = &self.sigs[sig_id.0 as usize];
        if sig.span.file.0 == 0 {
            return None;
        }
        let total = sig.params.len();
        let names: Vec<String> = sig.params.iter().map(|p| format!("`{}`", p.name)).collect();
        let what = if sig.is_node { "node" } else { "function" };
        let text = if total == 0 {
            format!("{what} `{}` declared here without parameters", sig.name)
        } else {
            format!(
                "{what} `{}` declared here with {total} parameter{}: {}",
                sig.name,
                plural(total),
                names.join(", ")
            )
        };
        Some((sig.span, text))
    }

    /// The diagnostic for one argument that does not fit its parameter (a value that does not
    /// convert, or an `out`/`inout` argument that is not an assignable place of the type).
    fn argument_mismatch(&self, name: &str, arg: &CallArg, param: &SigParam) -> Option<Diagnostic> {
        let dir = match param.direction {
            ParamDirection::In => {
                if types::conversion(&arg.value.ty, &param.ty).is_some() {
                    return None;
                }
                let message = types::cannot_convert_message(&arg.value.ty, &param.ty, &self.types);
                return Some(
                    Diagnostic::error(arg.span, message)
                        .with_note(format!("in argument `{}` of `{name}`", param.name)),
                );
            }
            ParamDirection::Out => "out",
            ParamDirection::InOut => "inout",
        };
        match &arg.place {
            None => Some(Diagnostic::error(
                arg.span,
                format!(
                    "argument for `{dir}` parameter `{}` must be assignable",
                    param.name
                ),
            )),
            Some(place) if place.ty != param.ty => {
                let (found, wanted) = (self.show(&place.ty), self.show(&param.ty));
                Some(Diagnostic::error(
                    arg.span,
                    format!(
                        "argument for `{dir}` parameter `{}` must have type `{wanted}`, found `{found}`",
                        param.name
                    ),
                ))
            }
            Some(_) => None,
        }
    }

    fn finish_call(
        &mut self,
        sig_id: SigId,
        args: Vec<CallArg>,
        is_async: bool,
        span: Span,
    ) -> Expr {
        let index = sig_id.0 as usize;
        let (is_node, target, ret) = {
            let sig = &self.sigs[index];
            (sig.is_node, sig.target.clone(), sig.ret.clone())
        };
        if is_async && !is_node {
            self.error(span, "`async` can only be used on node calls");
        }
        // The parameters are lent out of the signature table while the arguments are converted
        // (which never looks at signatures), instead of copying the signature.
        let params = std::mem::take(&mut self.sigs[index].params);
        let mut hir_args = Vec::with_capacity(params.len());
        let given = args.len();
        for (arg, param) in args.into_iter().zip(&params) {
            hir_args.push(match param.direction {
                ParamDirection::In => Arg::In(self.coerce(arg.value, &param.ty)),
                ParamDirection::Out => {
                    Arg::Out(arg.place.expect("matched out arguments are places"))
                }
                ParamDirection::InOut => {
                    Arg::InOut(arg.place.expect("matched inout arguments are places"))
                }
            });
        }
        for param in &params[given..] {
            let default = param.default.clone().unwrap_or_else(|| Expr::error(span));
            hir_args.push(Arg::In(Expr { span, ..default }));
        }
        self.sigs[index].params = params;
        let callee = match target {
            Target::Function(func) => {
                if let Some(caller) = self.fcx.func {
                    self.call_edges.push((caller, func, span));
                }
                Callee::Function(func)
            }
            Target::Node(node) => Callee::Node(node),
            Target::Builtin(builtin) => Callee::Builtin(builtin),
            Target::Undefined => {
                let sig = &self.sigs[index];
                let diagnostic = Diagnostic::error(
                    span,
                    format!("function `{}` is declared but never defined", sig.name),
                )
                .with_secondary(sig.span, "declared here");
                self.report(diagnostic);
                return Expr::new(ExprKind::Error, ret, span);
            }
        };
        if self.fcx.func.is_none() && !matches!(callee, Callee::Builtin(_)) {
            self.error(span, "global initializers cannot call functions or nodes");
        }
        Expr::new(
            ExprKind::Call {
                callee,
                args: hir_args,
                is_async,
            },
            ret,
            span,
        )
    }

    /// `T(args)`: a functional cast (one numeric argument) or a vector/matrix constructor.
    pub fn check_construct(&mut self, target: &Type, args: &[ast::Expr], span: Span) -> Expr {
        let parts: Vec<Expr> = args.iter().map(|a| self.check_expr(a)).collect();
        if *target == Type::Error || parts.iter().any(|p| p.ty == Type::Error) {
            return Expr::new(ExprKind::Error, target.clone(), span);
        }
        let Some(kind) = target.component_kind().filter(|_| target.is_numeric()) else {
            if let [single] = parts.as_slice() {
                if types::conversion(&single.ty, target).is_some() {
                    let single = parts.into_iter().next().expect("one part");
                    return self.cast(single, target, span);
                }
            }
            self.error(
                span,
                format!("cannot construct a value of type `{}`", self.show(target)),
            );
            return Expr::new(ExprKind::Error, target.clone(), span);
        };
        if let [single] = parts.as_slice() {
            if single.ty.is_numeric()
                && (single.ty.component_count() != Some(1) || target.is_scalar())
                || single.ty.component_count() == Some(1)
            {
                let single = parts.into_iter().next().expect("one part");
                return self.cast(single, target, span);
            }
        }
        let wanted = target.component_count().unwrap_or(1);
        let mut total = 0;
        let mut converted = Vec::with_capacity(parts.len());
        for part in parts {
            let Some(n) = part.ty.component_count().filter(|_| part.ty.is_numeric()) else {
                let shown = self.show(&part.ty);
                self.error(
                    part.span,
                    format!("cannot use `{shown}` to construct `{}`", self.show(target)),
                );
                return Expr::new(ExprKind::Error, target.clone(), span);
            };
            total += n;
            let part_ty = part.ty.with_kind(kind);
            converted.push(self.convert_to(part, &part_ty));
        }
        if total != wanted {
            let shown = self.show(target);
            self.error(
                span,
                format!("`{shown}` needs {wanted} components, {total} given"),
            );
            return Expr::new(ExprKind::Error, target.clone(), span);
        }
        super::consteval::try_fold(Expr::new(
            ExprKind::Construct(converted),
            target.clone(),
            span,
        ))
    }

    /// `receiver.method(args)` on a view.
    pub fn check_method_call(
        &mut self,
        receiver: &ast::Expr,
        method: &ast::Ident,
        args: &[ast::Expr],
        span: Span,
    ) -> Expr {
        let receiver = self.check_expr(receiver);
        let call_args = self.check_args(args);
        if receiver.ty == Type::Error || call_args.iter().any(|a| a.value.ty == Type::Error) {
            return Expr::error(span);
        }
        let name = method.name.as_str();
        let Some(overloads) = builtins::view_method(&receiver.ty, name) else {
            let shown = self.show(&receiver.ty);
            let mut diag =
                Diagnostic::error(method.span, format!("no method `{name}` on `{shown}`"));
            if let Some(close) = builtins::suggest_method(&receiver.ty, name) {
                diag = diag.with_help(format!("did you mean `{close}`?"));
            }
            self.report(diag);
            return Expr::error(span);
        };
        let resource_desc = self
            .types
            .struct_by_name("ResourceDesc")
            .map(Type::Struct)
            .unwrap_or(Type::Error);
        let mut best: Option<(u32, &builtins::MethodSig)> = None;
        for sig in overloads {
            if sig.params.len() != call_args.len() {
                continue;
            }
            let costs: Option<Vec<Conversion>> = sig
                .params
                .iter()
                .zip(&call_args)
                .map(|(p, a)| {
                    types::conversion(&a.value.ty, &p.resolve(&receiver.ty, &resource_desc))
                })
                .collect();
            if let Some(costs) = costs {
                let cost = costs.iter().map(Conversion::cost).sum();
                if best.is_none_or(|(c, _)| cost < c) {
                    best = Some((cost, sig));
                }
            }
        }
        let Some((_, sig)) = best else {
            let counts: Vec<usize> = overloads.iter().map(|s| s.params.len()).collect();
            let message = if !counts.contains(&call_args.len()) {
                let list = counts
                    .iter()
                    .map(|c| c.to_string())
                    .collect::<Vec<_>>()
                    .join(" or ");
                format!(
                    "method `{name}` takes {list} argument{}, {} given",
                    if counts == [1] { "" } else { "s" },
                    call_args.len()
                )
            } else {
                format!(
                    "no overload of method `{name}` matches arguments ({})",
                    self.arg_list(&call_args)
                )
            };
            self.error(span, message);
            return Expr::error(span);
        };
        let mut hir_args = vec![Arg::In(receiver.clone())];
        for (arg, param) in call_args.into_iter().zip(sig.params) {
            let ty = param.resolve(&receiver.ty, &resource_desc);
            hir_args.push(Arg::In(self.coerce(arg.value, &ty)));
        }
        let result = sig.result.resolve(&receiver.ty, &resource_desc);
        Expr::new(
            ExprKind::Call {
                callee: Callee::Builtin(sig.builtin),
                args: hir_args,
                is_async: false,
            },
            result,
            span,
        )
    }
}

/// Whether an argument is written like an lvalue (a name, field, swizzle or index path).
fn is_place_syntax(expr: &ast::Expr) -> bool {
    match &expr.kind {
        ast::ExprKind::Name(_) => true,
        ast::ExprKind::Member { base, .. } | ast::ExprKind::Index { base, .. } => {
            is_place_syntax(base)
        }
        _ => false,
    }
}

/// The plural `s` of a count.
fn plural(count: usize) -> &'static str {
    if count == 1 {
        ""
    } else {
        "s"
    }
}
