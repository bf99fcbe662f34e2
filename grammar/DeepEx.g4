// DeepEx (.dx) grammar. C++ is generated from this at build time by /usr/bin/antlr4.
//
// Newlines are not significant: statements and settings are separated by their
// leading tokens ("name =", "key:"), so the parser needs at most two tokens of
// lookahead to find the end of a phrase. ';' may end a statement or setting.
grammar DeepEx;

file        : (useDecl | decl)* EOF ;

useDecl     : USE (qualifiedName | STRING) SEMI? ;
qualifiedName : IDENT (DOT IDENT)* ;

decl        : blockDecl | modelDecl | datasetDecl | trainDecl ;

blockDecl   : BLOCK name=IDENT LPAREN paramList? RPAREN outputs? body ;
modelDecl   : MODEL name=IDENT LPAREN paramList? RPAREN outputs? body ;

paramList   : param (COMMA param)* COMMA? ;
param       : name=IDENT (COLON typeExpr)? (ASSIGN expr)? ;
typeExpr    : tensorType | scalar=IDENT ;
tensorType  : elem=IDENT LBRACK (dim (COMMA dim)*)? RBRACK ;
dim         : INT | IDENT ;

outputs     : ARROW (outputDecl | LPAREN outputDecl (COMMA outputDecl)* COMMA? RPAREN) ;
outputDecl  : (name=IDENT COLON)? tensorType ;

body        : LBRACE stmt* RBRACE ;
stmt        : IDENT (COMMA IDENT)* ASSIGN expr SEMI?          # assignStmt
            | RETURN expr (COMMA expr)* SEMI?                 # returnStmt
            ;

// Alternatives listed first bind tighter.
expr        : primary                                          # primaryExpr
            | op=(MINUS | PLUS) expr                           # unaryExpr
            | expr op=(STAR | SLASH) expr                      # mulExpr
            | expr op=(PLUS | MINUS) expr                      # addExpr
            | expr op=(LT | LE | GT | GE | EQ | NE) expr       # cmpExpr
            | expr PIPE stage                                  # pipeExpr
            ;

// A pipeline stage: `x |> f(a)` means `f(x, a)`; `x |> f` means `f(x)`.
stage       : callee=IDENT (LPAREN argList? RPAREN)?                    # callStage
            | REPEAT LPAREN count=expr RPAREN LBRACE stage (PIPE stage)* RBRACE  # repeatStage
            ;

primary     : INT                                              # intLit
            | FLOAT                                            # floatLit
            | STRING                                           # stringLit
            | (TRUE | FALSE)                                   # boolLit
            | callee=IDENT LPAREN argList? RPAREN              # callExpr
            | IDENT                                            # nameExpr
            | LPAREN expr RPAREN                               # parenExpr
            | LBRACK (expr (COMMA expr)* COMMA?)? RBRACK       # listExpr
            ;

argList     : arg (COMMA arg)* COMMA? ;
arg         : (name=IDENT COLON)? expr ;

datasetDecl : DATASET name=IDENT LBRACE setting* RBRACE ;
trainDecl   : TRAIN name=IDENT? LBRACE setting* RBRACE ;

// A setting's value is a phrase of terms, e.g. `64 per rank`,
// `average every 8 steps`, `warmup(epochs: 1) then cosine`.
setting     : settingKey COLON settingValue SEMI? ;
// Keys may be keywords: `model: mlp`.
settingKey  : IDENT | MODEL | DATASET | TRAIN | BLOCK | REPEAT | USE ;
settingValue: phrase (THEN phrase)* ;
// Terms after the first are primaries: with `expr+`, `1 - 1` was also two
// terms `1`, `-1`, and that ambiguity made the parser look ahead to the end
// of every `+`/`-` chain, anywhere (quadratic time).
phrase      : expr phraseTerm* ;
phraseTerm  : primary ;

// ---- lexer ----
USE     : 'use' ;
BLOCK   : 'block' ;
MODEL   : 'model' ;
DATASET : 'dataset' ;
TRAIN   : 'train' ;
RETURN  : 'return' ;
REPEAT  : 'repeat' ;
THEN    : 'then' ;
TRUE    : 'true' ;
FALSE   : 'false' ;

PIPE    : '|>' ;
ARROW   : '->' ;
LE      : '<=' ;
GE      : '>=' ;
EQ      : '==' ;
NE      : '!=' ;
LT      : '<' ;
GT      : '>' ;
ASSIGN  : '=' ;
PLUS    : '+' ;
MINUS   : '-' ;
STAR    : '*' ;
SLASH   : '/' ;
LPAREN  : '(' ;
RPAREN  : ')' ;
LBRACK  : '[' ;
RBRACK  : ']' ;
LBRACE  : '{' ;
RBRACE  : '}' ;
COMMA   : ',' ;
COLON   : ':' ;
SEMI    : ';' ;
DOT     : '.' ;

FLOAT   : DIGITS '.' DIGITS? EXPONENT? | DIGITS EXPONENT | '.' DIGITS EXPONENT? ;
INT     : DIGITS ;
fragment DIGITS   : [0-9] ('_'? [0-9])* ;
fragment EXPONENT : [eE] [+-]? [0-9]+ ;
IDENT   : [a-zA-Z_] [a-zA-Z_0-9]* ;
STRING  : '"' (~["\\\r\n] | '\\' .)* '"' ;

LINE_COMMENT  : '//' ~[\r\n]* -> skip ;
BLOCK_COMMENT : '/*' .*? '*/' -> skip ;
WS      : [ \t\r\n]+ -> skip ;
// Anything else becomes one token the parser rejects with a clear message.
UNKNOWN : . ;
