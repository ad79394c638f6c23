// The Cosmos DB NoSQL query language, with the service's precedence (loosest first):
// ?: , ?? , OR , AND , (IN | LIKE | BETWEEN) , || , | , ^ , & , equality , relational , shifts ,
// additive , multiplicative , unary , member access.
// Keywords are case-insensitive. Written for this project; generated at build time.
grammar CosmosSql;

program : sqlQuery EOF ;

sqlQuery
  : selectClause fromClause? whereClause? groupByClause? orderByClause? offsetLimitClause?
  ;

selectClause : K_SELECT K_DISTINCT? topSpec? selection ;
topSpec : K_TOP (NUMBER | PARAMETER) ;
selection
  : '*'                                   # SelectStar
  | K_VALUE scalar                        # SelectValue
  | projection (',' projection)*          # SelectList
  ;
projection : scalar (K_AS? identifier)? ;

fromClause : K_FROM collectionExpr (K_JOIN collectionExpr)* ;
collectionExpr
  : identifier K_IN collection            # IteratorCollection
  | collection (K_AS? identifier)?        # AliasedCollection
  ;
collection
  : identifier pathStep*                  # PathCollection
  | '(' sqlQuery ')'                      # SubqueryCollection
  ;
pathStep
  : '.' identifier
  | '[' (NUMBER | STRING | PARAMETER) ']'
  ;

whereClause : K_WHERE scalar ;
groupByClause : K_GROUP K_BY scalar (',' scalar)* ;
orderByClause
  : K_ORDER K_BY K_RANK rankSpec (',' rankSpec)*   # OrderByRank
  | K_ORDER K_BY sortSpec (',' sortSpec)*          # OrderByPlain
  ;
sortSpec : scalar (K_ASC | K_DESC)? ;
// ORDER BY RANK takes scoring function calls only (full-text and hybrid search).
rankSpec : identifier '(' (scalar (',' scalar)*)? ')' (K_ASC | K_DESC)? ;
offsetLimitClause : K_OFFSET (NUMBER | PARAMETER) K_LIMIT (NUMBER | PARAMETER) ;

// In ANTLR, earlier alternatives of a left-recursive rule bind tighter.
scalar
  : scalar '??' scalar                            # Coalesce
  | <assoc=right> scalar '?' scalar ':' scalar    # Conditional
  | logical                                       # LogicalExpr
  ;

logical
  : logical K_AND logical                          # And
  | logical K_OR logical                           # Or
  | logical0                                       # Logical0Expr
  ;
logical0
  : binary K_NOT? K_IN '(' scalar (',' scalar)* ')'          # In
  | binary K_NOT? K_LIKE binary (K_ESCAPE STRING)?           # Like
  | binary K_NOT? K_BETWEEN binary K_AND binary              # Between
  | binary                                                   # BinaryExpr
  ;

binary
  : unary                                                    # UnaryExpr
  | binary op=('*' | '/' | '%') binary                       # Multiplicative
  | binary op=('+' | '-') binary                             # Additive
  | binary op=('<<' | '>>' | '>>>') binary                   # Shift
  | binary op=('<' | '<=' | '>' | '>=') binary               # Relational
  | binary op=('=' | '!=' | '<>') binary                     # Equality
  | binary '&' binary                                        # BitAnd
  | binary '^' binary                                        # BitXor
  | binary '|' binary                                        # BitOr
  | binary '||' binary                                       # Concat
  ;

unary
  : op=('-' | '+' | '~' | K_NOT) unary                       # Prefix
  | primary                                                  # PrimaryExpr
  ;

primary
  : primary '.' identifier                                   # Member
  | primary '[' scalar ']'                                   # Indexer
  | literal                                                  # LiteralExpr
  | PARAMETER                                                # Parameter
  | K_UDF '.' identifier '(' (scalar (',' scalar)*)? ')'     # UdfCall
  | K_EXISTS '(' sqlQuery ')'                                # Exists
  | K_ARRAY '(' sqlQuery ')'                                 # ArraySubquery
  | kw=(K_ALL | K_FIRST | K_LAST) '(' sqlQuery ')'           # AggregateSubquery
  | identifier '(' (scalar (',' scalar)*)? ')'               # Call
  | identifier                                               # Name
  | '[' (scalar (',' scalar)*)? ']'                          # ArrayLiteral
  | '{' (objectProperty (',' objectProperty)*)? '}'          # ObjectLiteral
  | '(' sqlQuery ')'                                         # Subquery
  | '(' scalar ')'                                           # Parens
  ;

objectProperty : (STRING | propertyName) ':' scalar ;
// Object literal keys may be any word, keywords included ({value: 1, array: [2]}).
propertyName
  : identifier | K_AND | K_ARRAY | K_AS | K_ASC | K_BETWEEN | K_BY | K_DESC | K_DISTINCT | K_ESCAPE | K_EXISTS
  | K_FALSE | K_FROM | K_GROUP | K_IN | K_JOIN | K_LIKE | K_LIMIT | K_NOT | K_NULL | K_OFFSET | K_OR | K_ORDER
  | K_SELECT | K_TOP | K_TRUE | K_UDF | K_UNDEFINED | K_VALUE | K_WHERE
  ;

literal : STRING | NUMBER | K_TRUE | K_FALSE | K_NULL | K_UNDEFINED ;

// Words that are keywords only where the grammar expects them.
identifier : IDENTIFIER | K_ALL | K_FIRST | K_LAST | K_RANK ;

K_ALL : A L L ;
K_AND : A N D ;
K_ARRAY : A R R A Y ;
K_AS : A S ;
K_ASC : A S C ;
K_BETWEEN : B E T W E E N ;
K_BY : B Y ;
K_DESC : D E S C ;
K_DISTINCT : D I S T I N C T ;
K_ESCAPE : E S C A P E ;
K_EXISTS : E X I S T S ;
K_FALSE : 'false' ;
K_FIRST : F I R S T ;
K_FROM : F R O M ;
K_GROUP : G R O U P ;
K_IN : I N ;
K_JOIN : J O I N ;
K_LAST : L A S T ;
K_LIKE : L I K E ;
K_LIMIT : L I M I T ;
K_NOT : N O T ;
K_NULL : 'null' ;
K_OFFSET : O F F S E T ;
K_OR : O R ;
K_ORDER : O R D E R ;
K_RANK : R A N K ;
K_SELECT : S E L E C T ;
K_TOP : T O P ;
K_TRUE : 'true' ;
K_UDF : 'udf' ;
K_UNDEFINED : 'undefined' ;
K_VALUE : V A L U E ;
K_WHERE : W H E R E ;

NUMBER
  : DIGIT+ ('.' DIGIT*)? EXPONENT?
  | '.' DIGIT+ EXPONENT?
  | '0' [xX] HEX+
  ;
fragment EXPONENT : [eE] [+-]? DIGIT+ ;

STRING
  : '"' (ESC | ~["\\\r\n])* '"'
  | '\'' (ESC | ~['\\\r\n])* '\''
  ;
fragment ESC : '\\' ( ["'\\/bfnrt] | 'u' HEX HEX HEX HEX ) ;

PARAMETER : '@' IDENT_PART+ ;
IDENTIFIER : IDENT_START IDENT_PART* ;
fragment IDENT_START : [a-zA-Z_] | ~[\u0000-\u007F] ;
fragment IDENT_PART : IDENT_START | DIGIT ;
fragment DIGIT : [0-9] ;
fragment HEX : [0-9a-fA-F] ;

WS : [ \t\r\n\u000C]+ -> skip ;
LINE_COMMENT : '--' ~[\r\n]* -> skip ;
BLOCK_COMMENT : '/*' .*? '*/' -> skip ;

// Anything else is one invalid token, so the parser reports it with its position.
INVALID : . ;

fragment A : [aA] ; fragment B : [bB] ; fragment C : [cC] ; fragment D : [dD] ; fragment E : [eE] ;
fragment F : [fF] ; fragment G : [gG] ; fragment H : [hH] ; fragment I : [iI] ; fragment J : [jJ] ;
fragment K : [kK] ; fragment L : [lL] ; fragment M : [mM] ; fragment N : [nN] ; fragment O : [oO] ;
fragment P : [pP] ; fragment Q : [qQ] ; fragment R : [rR] ; fragment S : [sS] ; fragment T : [tT] ;
fragment U : [uU] ; fragment V : [vV] ; fragment W : [wW] ; fragment X : [xX] ; fragment Y : [yY] ;
fragment Z : [zZ] ;
