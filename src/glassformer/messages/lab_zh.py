"""实验室的中文文字：与 lab_en.py 键相同、{字段} 相同；测得的数字与判定规则的阈值一律通过字段传入。"""

TEXT = {
    "lab.level.holds": "成立",
    "lab.level.half-true": "半对",
    "lab.level.fails": "不成立",
    "lab.report.lang": "中文",
    "lab.report.index_title": "glassformer 实验室：逐条检验教程中的说法",
    "lab.report.index_intro": (
        "每个实验都在 CPU 上训练或计算说法所涉及的小模型，并套用一条在运行之前就以代码写定的判定规则。数字、规则和图见"
        "各实验的报告。"
    ),
    "lab.report.commit": "代码：git 提交 {commit}。",
    "lab.report.commit_dirty": "代码：git 提交 {commit}，但受跟踪的文件有未提交的改动：运行的代码与该提交不同。",
    "lab.report.no_commit": "代码：不是在 git 检出目录里运行的，所以没有记录提交。",
    "lab.report.setup": "设置",
    "lab.report.claims": "说法与结论",
    "lab.report.claim": "说法",
    "lab.report.tutorial": "教程 {tutorial} {where}",
    "lab.report.rule": "判定规则（代码，运行前写定）",
    "lab.report.measured": "测得",
    "lab.report.verdict": "结论",
    "lab.report.numbers": "数字",
    "lab.report.figures": "图",
    "lab.report.reproduce": "复现",
    "lab.report.took": (
        "墙钟用时 {seconds} 秒，CPU 用时 {cpu_seconds} 秒，机器 {cpu}（{cores} 核，{threads} 个线程，torch {torch}；开"
        "始时平均负载 {load}：机器是多人共用的，CPU 用时更可靠）。"
    ),
    "lab.report.fast": "快速模式：冒烟测试的规模。这些数字只说明代码能跑、测的是什么，不代表完整运行的结论。",
    "lab.report.seeds": "随机种子数：{seeds}；多个种子时，数字为均值 ± 各种子的半极差。",
    "lab.report.experiment": "实验",
    # ------------------------------------------------------------------ mask-fill
    "lab.mask-fill.title": "掩码填充值：-inf、-1e9 还是该数据类型的最小值",
    "lab.mask-fill.setup": (
        "随机的查询和键（{keys} 个键，宽 {width}，{rows} 行查询），注意力行分两种：遮住一半键（部分遮挡）或全部遮住（全"
        "遮挡），分别在 float32、bfloat16 和 float16 下计算。比较教程的做法（先填充被遮的分数，再 softmax）与 "
        "glassformer 按掩码处理的 softmax；参考答案是 float64 下只对可见键做的 softmax，看不到任何键的行取全零。"
    ),
    "lab.mask-fill.1e9.claim": (
        "被遮挡的分数应填 -1e9 而不是 -inf：float32 下 exp(-1e9) 已经是 0，而 -inf 可能产生 NaN，所以业界用 -1e9。"
    ),
    "lab.mask-fill.1e9.rule": (
        "四条全部为真才算成立：部分遮挡的行上，-1e9 与按掩码处理的 softmax 权重相同（float32 和 bfloat16）；全遮挡的行"
        "用 -1e9 不出现 NaN（float32 和 bfloat16）；该行不给被遮的键任何权重；float16 可以用 -1e9 且不出 NaN。全为假："
        "不成立；否则半对。"
    ),
    "lab.mask-fill.1e9.finding": (
        "float32 下 exp(-1e9) = {exp}。用 -inf 时，全遮挡行的 {cells} 个权重中有 {nan_inf} 个是 NaN。float32 和 "
        "bfloat16 下用 -1e9：NaN 为 {nan_1e9} 个，而全遮挡的行会把最多 {hidden} 的权重放在本不该看到的键上（平均分配）"
        "。float16 配 -1e9：masked_fill 的回答是“{fp16_refused}”；先强制转换的话，-1e9 变成 {fp16_fill}，得到 "
        "{fp16_nan} 个 NaN。glassformer 按掩码处理的 softmax：任何数据类型下 {ours_nan} 个 NaN，被遮键上的权重为 "
        "{ours_hidden}。"
    ),
    "lab.mask-fill.inf.claim": "分数为 -inf 时，被遮位置的 softmax 权重趋近于 0。",
    "lab.mask-fill.inf.rule": (
        "在 float32、bfloat16 和 float16 下，部分遮挡的行中每个被遮权重都恰好为 0 且没有 NaN，则成立。"
    ),
    "lab.mask-fill.inf.finding": (
        "部分遮挡的行用 -inf，三种数据类型合计：不恰好为 0 的被遮权重 {nonzero} 个，NaN {nan_partly} 个。全遮挡的行用普"
        "通做法：{cells} 个权重中 {nan_inf} 个 NaN；glassformer 的 softmax 会检查掩码，让这种行取全零。"
    ),
    # 图上的文字
    "pictures.lab.mask-fill.nan_title": "整行被遮住时的 NaN 权重（占比）",
    "pictures.lab.mask-fill.hidden_title": "整行被遮住时落在被遮键上的权重（各行最大值）",
    "pictures.lab.mask-fill.ours": "本库",
    # ------------------------------------------------------------------ attention-steps
    "lab.attention-steps.title": "训练过程中的注意力：一开始均匀，之后变尖锐？",
    "lab.attention-steps.setup": (
        "字符模型（baby 预设：{layers} 层、{heads} 个头、d_model {d_model}）在莎士比亚文本上训练；用 glassformer train "
        "--attention-every 所用的同一个训练回调，在选定的步数记录每个头对一段固定的 {probe} 个字符验证文本的注意力图。"
        "尖锐程度：每个查询行的熵除以它能看到的键数的对数（1 = 平均分布，0 = 全部集中在一个键上），再对该行的查询取平均"
        "。"
    ),
    "lab.attention-steps.sharpen.claim": (
        "训练刚开始时注意力权重是均匀分布的；随着训练进行，权重会集中到少数几个位置上。"
    ),
    "lab.attention-steps.sharpen.rule": (
        "两部分：第 0 步时每个头的平均归一化熵都不低于 {even}（接近均匀）；最后一步各头的平均值比第 0 步至少低 "
        "{sharper}。两条都满足：成立；满足一条：半对；都不满足：不成立。"
    ),
    "lab.attention-steps.sharpen.finding": (
        "第 0 步时 {n} 个头的归一化熵平均为 {first_mean}（最低 {first_min}）；训练 {step} 步后平均为 {last_mean}（最低 "
        "{last_min}）。"
    ),
    # 图上的文字
    "pictures.lab.attention-steps.step": "第 {step} 步",
    "pictures.lab.attention-steps.head": "第 {layer} 层 · 头 {head}",
    "pictures.lab.attention-steps.title": "注意力权重（行 = 查询，列 = 键；白色 = 被遮住）",
    # ------------------------------------------------------------------ length
    "lab.length.title": "超出训练长度的位置",
    "lab.length.setup": (
        "字符模型（第一篇教程的 TinyTransformer，去掉 dropout）用每个已注册的位置方案在 {T} 个字符的窗口上训练，然后读 "
        "{T_eval} 个字符的窗口：报告位置 1..{T_eval} 上各自的验证损失。可学习位置表按两种方式构建：max_len 为 {T}（通常"
        "的做法）；以及 {T_eval} 行、但只有前 {T} 行被训练过。第一篇教程对正弦位置也有同样的说法（seed 000 第 4.2 节）"
        "。"
    ),
    "lab.length.sinusoidal.claim": (
        "正弦位置编码让模型能泛化到训练时没见过的序列长度，因为相对位置关系被编码进了正弦波里。"
    ),
    "lab.length.sinusoidal.rule": (
        "两部分：正弦模型在位置 T+1..2T、以及 2T+1..{T_eval} 上的平均损失，都不比它在位置 T/2+1..T（训练过、上下文已较"
        "长）上的损失高出 {tol} nats 以上。两条都满足：成立；一条：半对；都不满足：不成立。"
    ),
    "lab.length.sinusoidal.finding": (
        "正弦：位置 {half} 到 {T} 为 {in} nats，到位置 {T2} 为 {near}，从那里到 {T_eval} 为 {far}。{T2} 之后最好的方案"
        "：{best}（{best_far}）。"
    ),
    "lab.length.learned.claim": "可学习的位置表（max_len 行的嵌入）遇到比训练时更长的序列时必然崩溃。",
    "lab.length.learned.rule": (
        "两部分：按训练长度构建的可学习位置表根本无法处理更长的输入；有富余行的表（{T_eval} 行，只训练前 {T} 行）在位置"
        " 2T+1..{T_eval} 上的损失比在 T/2+1..T 上至少高 {collapse} nats。两条都满足：成立；一条：半对；都不满足：不成立"
        "。"
    ),
    "lab.length.learned.finding": (
        "按 max_len = {max_len} 构建时，可学习位置模型在要读的 {T_eval} 个位置中只有 1 到 {reach}：其余位置如实报告，不"
        "运行。有富余行时，从未训练过的那些行让损失从 {in} 变成 {far} nats（只靠字符频率：{unigram}）。"
    ),
    # ------------------------------------------------------------------ order
    "lab.order.title": "没有位置信息时的顺序",
    "lab.order.setup": (
        "先用 float64 下的随机权重：对 {T} 个词元做随机置换，比较 f(打乱后的输入) 与打乱后的 f(输入) 相差多少，分别针对"
        "没有位置的编码器、有可学习位置的编码器，以及没有位置的因果解码器。然后训练有位置和没有位置的因果字符模型：比较"
        "验证损失，以及把最后一个位置之前的词元打乱后（最后一个词元及其目标不动），最后位置的损失上升了多少。"
    ),
    "lab.order.set.claim": "自注意力是集合运算：没有位置信息时，打乱输入只会让输出同样被打乱，模型分辨不出词序。",
    "lab.order.set.rule": (
        "两部分：没有位置的编码器是置换等变的（最大差不超过 {equivariant}）；训练后的无位置因果解码器对顺序无感（打乱前"
        "缀后，最后位置的损失上升不超过 {blind} nats）。两条都满足：成立；一条：半对；都不满足：不成立。"
    ),
    "lab.order.set.finding": (
        "f(x[π]) − f(x)[π] 的最大差：没有位置的编码器 {enc}；有可学习位置 {enc_learned}；没有位置的因果解码器 {dec}（因"
        "果掩码本身就告诉每个词元它前面有几个词元）。训练后：打乱前缀使无位置解码器最后位置的损失变化 {penalty} nats（"
        "有可学习位置时：{penalty_learned}）。"
    ),
    "lab.order.stuck.claim": "去掉位置嵌入后，模型学不会语法：损失停在起点不动。",
    "lab.order.stuck.rule": (
        "如果没有位置的因果模型最终损失比“只知道字符频率”的损失低不到 {stuck} nats，则成立；否则不成立。"
    ),
    "lab.order.stuck.finding": (
        "训练 {steps} 步后，没有位置的因果模型达到 {none} nats；有可学习位置时为 {learned}，只看当前字符的二元统计表（"
        "哪个字符后面跟哪个）为 {bigram}，只靠字符频率为 {unigram}。"
    ),
    # 图上的文字
    "pictures.lab.order.gap_title": "|f(x[π]) − f(x)[π]| 的最大值，float64",
    "pictures.lab.order.case.encoder.none": "编码器\n无位置",
    "pictures.lab.order.case.encoder.learned": "编码器\n学习的位置",
    "pictures.lab.order.case.gpt.none": "因果解码器\n无位置",
    "pictures.lab.order.val_loss": "验证损失",
    "pictures.lab.order.shuffled": "打乱前缀后损失的上升",
    "pictures.lab.order.unigram": "只用字符频率",
    "pictures.lab.order.bigram": "二元表（只看当前字符）",
    "pictures.lab.order.scheme": "因果掩码，position={position}",
    # ------------------------------------------------------------------ scaling
    "lab.scaling.title": "注意力中的 1/√D：为了数值，还是为了梯度？",
    "lab.scaling.setup": (
        "查询和键的每个分量独立服从标准正态分布，每行 {keys} 个键，D 从 {D_min} 到 {D_max}，分数分别除以和不除以 √D：比"
        "较分数的方差、softmax 的归一化熵、饱和行的比例（最大权重超过 {saturated}）、float32 下是否出现非有限的权重，以"
        "及固定的随机梯度反向穿过 softmax 后到达查询的梯度（中位数，以及梯度几乎消失的行所占比例）。然后用一个头（D = "
        "{D_one}）和四个头（D = {D_four}）的字符模型分别按两种方式训练；不缩放的版本是一个包装器，用钩子把注意力分数乘"
        "以 √D，模型自身的代码不变。"
    ),
    "lab.scaling.variance.claim": (
        "不除以 √D 时，点积随 D 增大，softmax 进入饱和区，梯度变得非常小；除以 √D 让分数方差保持稳定，对训练稳定性影响"
        "很大。"
    ),
    "lab.scaling.variance.rule": (
        "四部分：在每个 D 上，不缩放时分数方差为 D（在 {var_low} 到 {var_high} 倍之间），缩放时为 1；在最大的 D 上，不"
        "缩放时至少一半的行饱和，缩放时至多 {saturated_scaled}；在最大的 D 上，不缩放时至少 {vanished_share} 的行梯度低"
        "于 {vanished}，且不缩放的梯度中位数不到缩放时的一半；训练中，最大 D 的模型不缩放时每个种子的结果都比缩放时的每"
        "个种子差。全部满足：成立；都不满足：不成立；否则半对。"
    ),
    "lab.scaling.variance.finding": (
        "D = {D} 时：分数方差除以 √D 为 {var_scaled}，不除为 {var_unscaled}；饱和行分别为 {sat_scaled} 和 "
        "{sat_unscaled}；查询梯度低于 {vanished} 的行分别为 {van_scaled} 和 {van_unscaled}。"
        "D = {D_train} 的字符模型：验证损失缩放时 {loss_scaled}，不缩放时 {loss_unscaled}；发散的运行：{diverged}。"
    ),
    "lab.scaling.gradients.claim": "缩放不是为了数值稳定，而是为了控制梯度。",
    "lab.scaling.gradients.rule": (
        "两部分：无论是否缩放，任何 D 下 float32 的 softmax 权重都没有非有限值（数值本身是安全的）；随着 D 变化，缩放时"
        "查询梯度的中位数变化不超过 {steady} 倍，不缩放时变化 {moves} 倍以上。两条都满足：成立；一条：半对；都不满足："
        "不成立。"
    ),
    "lab.scaling.gradients.finding": (
        "float32 下非有限的权重：{nonfinite} 个。从 D = {small} 到 D = {big}，查询梯度的中位数在除以 √D 时变化 "
        "{span_scaled} 倍，不除时变化 {span_unscaled} 倍。D = {big} 不缩放时：均值 {mean_unscaled}，中位数 "
        "{median_unscaled}（缩放时中位数 {median_scaled}）。"
    ),
    # 图上的文字
    "pictures.lab.scaling.variance_title": "分数的方差",
    "pictures.lab.scaling.grad_title": "‖∂L/∂q‖ 的中位数（虚线：小于 {vanished} 的行的占比）",
    "pictures.lab.scaling.scaled": "缩放",
    "pictures.lab.scaling.unscaled": "不缩放",
    "pictures.lab.scaling.d_axis": "D（每个头的维度 d_head）",
    "pictures.lab.scaling.run": "D={D}，{way}",
    "pictures.lab.scaling.train_title": "字符模型，有无 1/√D 缩放",
    # ------------------------------------------------------------------ heads
    "lab.heads.title": "多个窄头还是少数宽头",
    "lab.heads.setup": (
        "d_model 为 {d_model} 的字符模型，分别用 1、2、4、8、16 个头（每个头的宽度 D 从 {D_max} 降到 {D_min}；参数量不"
        "随头数变化）。测量：验证损失、验证减训练损失（过拟合程度），以及每个头在固定验证窗口上、从注意力权重钩子读出的"
        "行平均归一化熵和查询给自己的平均权重。自身权重超过 {diagonal} 的头记为“对角”头，熵超过 {uniform} 的头记为“接近"
        "均匀”。"
    ),
    "lab.heads.many.claim": (
        "头太多有害：小模型用 16 个头比 4 个头效果更差，因为每个头的宽度太小；超过一半的头只关注自身位置，其余的头几乎"
        "均匀分布。每个头的宽度应至少为 64。"
    ),
    "lab.heads.many.rule": (
        "三部分：头数最多的模型每个种子的损失都高于 4 头模型的每个种子；头数最多的模型中，对角头加接近均匀的头超过一半"
        "；宽度 64 的单头模型平均表现不差于 4 头。全部满足：成立；都不满足：不成立；否则半对。"
    ),
    "lab.heads.many.finding": (
        "验证损失：{few} 个头（D = {D_few}）为 {loss_few}，{mid} 个头为 {loss_mid}，{most} 个头为 {loss_most}。在 "
        "{most} 个头中：对角头占 {diag}，接近均匀的占 {uniform}。"
    ),
    "lab.heads.sharp.claim": (
        "用 8 个头时注意力分数过于尖锐，模型容易过拟合训练数据；2 个头又太弱，无法同时捕捉多种关系；4 个头正好。"
    ),
    "lab.heads.sharp.rule": (
        "三部分：8 个头的平均熵低于 4 个头（更尖锐）；8 个头的“验证减训练”差距比 4 个头大 {overfit} nats 以上（过拟合）"
        "；2 个头每个种子的损失都高于 4 个头的每个种子。全部满足：成立；都不满足：不成立；否则半对。"
    ),
    "lab.heads.sharp.finding": (
        "平均归一化熵：{eight} 个头为 {ent_eight}，{mid} 个头为 {ent_mid}。验证减训练损失：{eight} 个头为 {gap_eight}，"
        "{mid} 个头为 {gap_mid}。{two} 个头的验证损失：{loss_two}；{mid} 个头：{loss_mid}。"
    ),
    # ------------------------------------------------------------------ ffn-width
    "lab.ffn-width.title": "前馈网络要多宽，能不能去掉",
    "lab.ffn-width.setup": (
        "字符模型（d_model C = {C}）分别取 d_ff = 0（没有前馈网络）、C、2C、4C 和 8C；验证损失对参数量作图。d_ff = 0 的"
        "做法：照常构建模型，再把每个块的前馈网络换成一个什么都不加的模块（并把只给前馈网络供数的第二个 LayerNorm 换成"
        "恒等映射），因此核心代码不需要为此加开关。另外直接计算：宽度为 C 的前馈网络是否是线性映射，看 f(x + y) − f(x) "
        "− f(y) + f(0)，它对所有 x、y 都为零当且仅当映射是线性的。"
    ),
    "lab.ffn-width.equal.claim": "d_ff 等于 d_model 时，前馈网络退化为单个线性映射，模型完全不收敛。",
    "lab.ffn-width.equal.rule": (
        "两部分：d_ff = C 的模型最终损失比“只知道字符频率”低不到 {stuck} nats（没有收敛）；宽度为 C 的前馈网络是线性的"
        "（相对残差小于 {linear}）。两条都满足：成立；一条：半对；都不满足：不成立。"
    ),
    "lab.ffn-width.equal.finding": (
        "d_ff = {C}：验证损失 {loss_eq}（只靠字符频率：{unigram}；d_ff = 4C：{loss_wide}）。宽度 C 的前馈网络偏离线性的"
        "相对残差：{nonlin}。"
    ),
    "lab.ffn-width.removed.claim": (
        "去掉前馈网络后，损失卡在远高于完整模型的位置：前馈网络才是 Transformer 能“思考”的基础。"
    ),
    "lab.ffn-width.removed.rule": (
        "两部分：没有前馈网络时每个种子的损失都高于 d_ff = 4C 的每个种子；没有前馈网络时损失与“只知道字符频率”相差不到 "
        "{stuck} nats（卡住）。两条都满足：成立；一条：半对；都不满足：不成立。"
    ),
    "lab.ffn-width.removed.finding": (
        "没有前馈网络：{loss_none}（{params_none} 个参数）；d_ff = 4C：{loss_wide}（{params_wide} 个参数）；只靠字符频"
        "率：{unigram}。"
    ),
    # ------------------------------------------------------------------ init
    "lab.init.title": "初始化：Xavier、PyTorch 默认、GPT-2 的，以及一个过大的",
    "lab.init.setup": (
        "字符模型（pre-LN）以及去掉所有 LayerNorm 的同一模型（第二篇教程的块），各用四种方式初始化：PyTorch 默认、"
        "Xavier 均匀分布（教程的做法）、GPT-2 的 N(0, 0.02) 加缩放的残差投影，以及所有矩阵取自 N(0, 1)（故意过大；在构"
        "建后施加）。测量固定步数时的训练损失、最终验证损失、崩溃的运行，以及在初始化时用一个固定批次测得的各部分梯度范"
        "数和注意力分数的离散程度。"
    ),
    "lab.init.xavier.claim": (
        "Xavier 初始化是模型能训练起来的关键：权重初始过大会让 Q·Kᵀ 爆炸、softmax 得到 NaN；初始过小会让梯度消失、损失"
        "纹丝不动。"
    ),
    "lab.init.xavier.rule": (
        "三部分：过大的初始化产生 NaN（训练中损失变为非有限值，或初始化时 logits 非有限）；GPT-2 的小初始化在两种结构上"
        "最终都与“只知道字符频率”相差不到 {stuck} nats（卡住）；在两种结构上，Xavier 的每个种子都低于 PyTorch 默认和 "
        "GPT-2 初始化的每个种子。全部满足：成立；都不满足：不成立；否则半对。"
    ),
    "lab.init.xavier.finding": (
        "训练 {steps} 步后的验证损失，pre-LN：PyTorch {preLN_torch}，Xavier {preLN_xavier}，GPT-2 {preLN_gpt2}，N(0, 1)"
        " {preLN_large}；没有 LayerNorm：{noLN_torch}、{noLN_xavier}、{noLN_gpt2}、{noLN_large}。损失变成 NaN 的运行："
        "{nan_runs}。没有 LayerNorm 时初始化时的注意力分数标准差：N(0, 1) 为 {std_large}，Xavier 为 {std_xavier}。只靠"
        "字符频率：{unigram}。"
    ),
    # 图上的文字
    "pictures.lab.init.arch.pre": "前置 LN",
    "pictures.lab.init.arch.none": "无 LN",
    "pictures.lab.init.loss_title": "{arch}：训练损失（各种子的平均）",
    "pictures.lab.init.run": "{arch} / {init}",
    "pictures.lab.init.grad_title": "初始化时每个块的梯度范数",
    # ------------------------------------------------------------------ layernorm
    "lab.layernorm.title": "Pre-LN 还是 Post-LN，以及预热（warmup）的作用",
    "lab.layernorm.setup": (
        "小型字符模型（d_model {d_model}，{n_heads} 个头，d_ff {d_ff}，窗口 {seq_len}）在深度 2、6、12 下，LayerNorm"
        " 放在每个子层之前（Pre-LN）或每次残差相加之后（Post-LN，无最终归一化），扫描一组学习率，分别带和不带线性预热（"
        "其余时间学习率恒定），用同一个训练器训练相同步数。损失变成非有限值，或最终不比“只知道字符频率”更好，即记为失败"
        "。另外：最深模型在初始化时、一个固定批次上各块的梯度范数。"
    ),
    "lab.layernorm.post_unstable.claim": "Post-LN 对学习率更敏感，稍不注意就发散；Pre-LN 训练更稳定。",
    "lab.layernorm.post_unstable.rule": (
        "两部分（不预热）：Post-LN 失败的（深度，学习率）组合比 Pre-LN 多；并且在每个深度上，Pre-LN 能训练的最大学习率"
        "不低于 Post-LN。两条都满足：成立；一条：半对；都不满足：不成立。"
    ),
    "lab.layernorm.post_unstable.finding": (
        "不预热时，{cells} 个组合中失败的：Pre-LN {fails_pre} 个，Post-LN {fails_post} 个。深度 {depths} 下能训练的最大"
        "学习率：Pre-LN {stable_pre}；Post-LN {stable_post}。"
    ),
    "lab.layernorm.post_must.claim": (
        "LayerNorm 必须放在残差相加之后（Post-LN）：先归一化再相加，相加会破坏归一化的效果，所以顺序不可颠倒。"
    ),
    "lab.layernorm.post_must.rule": (
        "每个深度一条：在各自表现最好的学习率下（不预热），Post-LN 的每个种子都低于 Pre-LN 的每个种子。所有深度都满足："
        "成立；都不满足：不成立；否则半对。"
    ),
    "lab.layernorm.post_must.finding": (
        "深度 {depths} 下各学习率中最好的验证损失：Pre-LN {best_pre}；Post-LN {best_post}。"
    ),
    "lab.layernorm.warmup.claim": (
        "预热是必须的：不预热时损失会剧烈震荡甚至发散，因为 LayerNorm 和注意力让早期的梯度很不稳定。"
    ),
    "lab.layernorm.warmup.rule": (
        "两部分：对 Pre-LN，存在不预热失败、预热后能训练的组合；对 Post-LN 同样。两条都满足：成立；一条：半对；都不满足"
        "：不成立。"
    ),
    "lab.layernorm.warmup.finding": (
        "{warmup} 步预热挽救的组合：Pre-LN {rescued_pre} 个，Post-LN {rescued_post} 个。不预热和预热时失败的组合："
        "Pre-LN {fails_pre} 和 {fails_pre_w} 个；Post-LN {fails_post} 和 {fails_post_w} 个。"
    ),
    # 图上的文字
    "pictures.lab.layernorm.lr_axis": "学习率",
    "pictures.lab.layernorm.run": "{norm}-LN，预热 {warmup} 步",
    "pictures.lab.layernorm.depth_title": "深度 {depth}：验证损失（× = 失败）",
    "pictures.lab.layernorm.norm": "{norm}-LN",
    "pictures.lab.layernorm.grad_title": "初始化时每个块的 ‖梯度‖，深度 {depth}",
    # ------------------------------------------------------------------ causal-leak
    "lab.causal-leak.title": "因果泄漏：没有掩码时，下一个词元预测模型会偷看答案",
    "lab.causal-leak.setup": (
        "与 hello-world 课程共用同一套测量代码：第二篇教程的单层模型在相互独立的随机词元上分别带和不带因果掩码训练（诚"
        "实的模型最好只能达到随机水平 ln S），以及每个位置的预测对后续词元的依赖程度。然后是带因果掩码和不带掩码的字符"
        "模型（后者是用同样的下一个词元目标训练的编码器）：整个窗口都可见时（与训练时相同）的验证损失，以及位置 t 只能"
        "看到 0..t 时（与生成时相同）的验证损失。"
    ),
    "lab.causal-leak.cheat.claim": "解码器训练时必须遮住未来的词元；没有因果掩码，它会学会作弊，直接读取答案。",
    "lab.causal-leak.cheat.rule": (
        "三部分：在随机词元上，无掩码模型的留出损失低于随机水平的一半，而因果模型保持在随机水平的 {chance_share} 以内；"
        "在文本上，无掩码模型在看得到整个窗口时比因果模型好 {margin} nats 以上，只看得到过去时比因果模型差 {margin} "
        "nats 以上；它的预测依赖后续词元（梯度非零），而因果模型的依赖恰好为 0。全部满足：成立；都不满足：不成立；否则"
        "半对。"
    ),
    "lab.causal-leak.cheat.finding": (
        "随机词元（{S} 个符号，随机水平 {chance}）：留出损失无掩码 {none_rt}，有掩码 {causal_rt}。文本，整个窗口可见："
        "无掩码 {forced_none}，有掩码 {forced_causal}；只看得到过去：无掩码 {honest_none}，有掩码 {honest_causal}。对后"
        "续词元的最大依赖：无掩码 {grad_none}，有掩码 {grad_causal}。"
    ),
    # 图上的文字
    "pictures.lab.causal-leak.position_axis": "位置",
    "pictures.lab.causal-leak.random_loss": "留出数据上的损失，随机词元",
    "pictures.lab.causal-leak.whole": "整个窗口都可见",
    "pictures.lab.causal-leak.prefix": "只有词元 0..t 可见",
    "pictures.lab.causal-leak.text_loss": "验证损失，字符模型（奈特）",
    # ------------------------------------------------------------------ 复现账本（重跑已发表的结果）
    "lab.report.paper": "{who}，{where}（论文：{paper}）",
    "lab.report.paper_says": "论文",
    "lab.report.ours": "我们",
    "lab.report.not_found": "本次运行能读到的论文文本中没有找到",
    # 句中逐个种子的步数：某一步，或在预算步数内没有发生
    "lab.report.step": "第 {step} 步",
    "lab.report.never": "{within} 步内未出现",
    "lab.report.sep": "、",
    # ------------------------------------------------------------------ grokking
    "lab.grokking.title": "模加法上的顿悟（grokking）（账本：Power 等 2022；Nanda 等 2023）",
    "lab.grokking.setup": (
        "a + b mod {p}，输入为三个词元 [a, b, =]，只有 = 处的答案是目标；{fraction}% 的数对用于训练，其余用于测试。"
        "模型仿照 Nanda 等的单层 Transformer 并按 CPU 预算缩小：4 个头，d_model {d_model}，ReLU MLP 宽 4·d_model，"
        "无 LayerNorm，可学习位置，Xavier 均匀初始化（试跑中 torch 默认的 N(0, 1) 嵌入在 2250 步后"
        "测试准确率仍只有 0.011；Xavier 在第 4500 步已超过 0.86）。全批量 AdamW（lr 1e-3，betas 0.9 和 0.98，"
        "预热 10 步）训练 {steps} 步，所有权重"
        "的权重衰减为 {wd}，另跑一次权重衰减为 0 的对照（一个种子）。Nanda 等 §3 用 p = 113、宽度 d = 128、30% 的数对，"
        "全批量 AdamW，学习率 0.001，权重衰减 1，训练 40,000 个 epoch；这里 p、宽度、训练比例和训练长度"
        "都不同，以便放进 CPU：试跑中 p = 53、30% 在 6000 步内没有跃升，更长的运行放不进预算。"
    ),
    "lab.grokking.delay.claim": (
        "只用加法表的一部分训练时，模型很早就拟合了训练数对，要到很久以后它在留出数对上的准确率才突然跃升（顿悟）。"
    ),
    "lab.grokking.delay.rule": (
        "有权重衰减时，对每个种子：训练准确率首次 ≥ {fit} 的记录步数，以及测试准确率首次 ≥ {jump} 的步数。每个种子"
        "的测试跃升都至少比训练拟合晚 {delay} 倍：成立；有种子跃升但并非每个都这么晚：半对；预算内没有种子跃升：不成立"
        "。"
    ),
    "lab.grokking.delay.finding": (
        "p = {p}，{seeds} 个种子：训练准确率达到 {fit}：{fit_steps}；测试准确率达到 {jump}：{jump_steps}"
        "（预算 {steps} 步）。"
    ),
    "lab.grokking.delay.paper": (
        "Power 等，图 1（模 97 除法，50% 的数对用于训练）：“Training accuracy "
        "becomes close to perfect at <10^3 optimization steps"
        ", but it takes close to 10^6 steps for validation ac"
        "curacy to reach that level”（训练准确率在不到 10^3 步时接近完美，验证准"
        "确率要近 10^6 步才达到同样水平）；“Generalization beyond overfitti"
        "ng”一节：验证准确率要在比训练准确率接近最优多 1000 倍的优化步数之后才开始高于随机水平。Nand"
        "a 等，§3（p = 113，30% 的数对，全批量 AdamW 训练 40,000 个 epoch）："
        "大约 10,000 个 epoch 后网络泛化，测试准确率升到接近 100%。"
    ),
    "lab.grokking.delay.ours": "训练拟合：{fit_steps}；测试跃升：{jump_steps}（p = {p}）",
    "lab.grokking.decay.claim": "没有权重衰减就不会跃升：在同样的预算内模型始终只是在死记硬背。",
    "lab.grokking.decay.rule": (
        "两部分，权重衰减为 0、步数相同：每个种子都拟合了训练数对（准确率 ≥ {fit}）；每个种子的最终测试准确率都低于 "
        "{no_jump}。两者都满足：成立；满足其一：半对；都不满足：不成立。"
    ),
    "lab.grokking.decay.finding": "权重衰减为 0：{steps} 步后最终测试准确率为 {final}。",
    "lab.grokking.decay.paper": (
        "Power 等，“Ablations and Tricks”一节（在 S5 置换上测得，图 2 左，不是"
        "加法）：加入权重衰减对数据效率影响非常大，与大多数其他干预相比，所需样本量减少一半以上。模加法上权重衰减"
        "为 0 的运行：本次运行能读到的论文文本中没有找到。"
    ),
    "lab.grokking.decay.ours": "无权重衰减时最终测试准确率 {final}",
    "lab.grokking.fourier.claim": "训练后的嵌入在余数的傅里叶基下是稀疏的：少数几个关键频率撑起了它。",
    "lab.grokking.fourier.rule": (
        "嵌入在每个频率上的非常数傅里叶能量占比；关键频率的占比至少是均匀分布时的 {key_share} 倍。两部分，有权重衰减的"
        "每个种子：关键频率至多 {few} 个；它们合起来至少占能量的 {concentrated}。两者都满足：成立；满足其一：半对；都"
        "不满足：不成立。"
    ),
    "lab.grokking.fourier.finding": (
        "有权重衰减：{K} 个频率中有 {counts} 个关键频率（k = {keys}），占能量的 {share}。无权重衰减：{control} 个关键"
        "频率；"
        "初始化时：{init} 个。"
    ),
    "lab.grokking.fourier.paper": (
        "Nanda 等，§4.1 与图 3（p = 113：56 个频率）：嵌入矩阵 W_E 在傅里叶基下是稀疏"
        "的，只在 6 个频率上有不可忽略的范数；其中 5 个，k ∈ {{14, 35, 41, 42, 52}}，"
        "在模型后面的部分被用到（关键频率）；附录 C.2.1：其他种子各有 3 或 4 个关键频率。"
    ),
    "lab.grokking.fourier.ours": "{K} 个频率中有 {counts} 个关键频率，占能量的 {share}",
    # ------------------------------------------------------------------ induction
    "lab.induction.title": "归纳头与上下文学习的相变（账本：Olsson 等 2022）",
    "lab.induction.setup": (
        "只有注意力的模型（实验室的块去掉 FFN），一层和两层，{heads} 个头，d_model {d_model}，在长 {L} 个词元（词表 {V}"
        "）"
        "的序列上训练 {steps} 步；每条序列是一段随机片段接着它自己，每个批次重新抽取。ICL 分数：第 {late} 个词元的损失"
        "减去第 {early} 个词元的损失，即论文在 512 词元上下文中的第 500 和第 50 个词元按 {L} 缩放。训练过程中用 "
        "glassformer 的因果检测器在固定的重复序列上给每个头"
        "打归纳分和前一词元分。检测器分数按同一批序列上完美头的得分来读："
        "完美的归纳头在那里得 {perfect_induction}（前面没有副本的"
        "行没有可看的格子），完美的前一词元头得 {perfect_previous}。"
        "ICL 分数保留论文的符号（后减前：上下文有帮助时为负）；论文的“不到 0.15”和“大约 0.4 nats”是这个负分数的大小。"
        "消融：通过钩子点把第二层的归纳头的输出一起置零。"
        "每个种子发生变化的步数不同：在一次 {trial_steps} 步的试跑中，两层的种子 0 在第 {from} 到第 {to} 步之间完成变化"
        "（ICL {before} → {after} nats，最终 {final}；把它的三个归纳头一起敲除后为 {without}），"
        "晚于本条目最初运行的 {first_steps} 步；之后预算提高到 {steps} 步，规则不变。"
        "模型比论文的小模型小（Model Details：1 到 6 层，d_model 768，每层 12 个头，在自然文本上训练 "
        "10,000 步），以便放进 CPU 预算。"
    ),
    "lab.induction.phase.claim": "两层只有注意力的模型在训练中会突然获得上下文学习能力，一层模型不会。",
    "lab.induction.phase.rule": (
        "两部分：每个两层种子的最终 ICL 分数不高于 {learned} nats，且其总变化至少 {half} 落在 {window}% 的训练步数之内"
        "；"
        "每个一层种子的最终分数高于 {none} nats。两者都满足：成立；满足其一：半对；都不满足：不成立。"
    ),
    "lab.induction.phase.finding": (
        "两层：最终 ICL 分数 {two} nats，一个窗口内的变化占比 {share}"
        "，完成一半变化：{half}。一层：{one} nats，一个窗口内"
        "占比 {one_share}（{steps} 步）。一个只知道上下"
        "文里有哪些词元、不知道它们接下来在哪里出现的预测器（不需要归纳头："
        "一层就学得会），在这些序列上得分 {bag} nats（规则要求一层模型保持在 {none} 之上）。"
    ),
    "lab.induction.phase.paper": (
        "Olsson 等，论据 1：上下文学习在训练早期的一个窄窗口内（大约 25 亿到 50 亿个词元）突然形"
        "成；窗口之前不到 0.15 nats，之后大约 0.4 nats，各种模型规模都一样，“except f"
        "or the one layer model where not much in-context lea"
        "rning ever forms”（一层模型除外，它始终没有形成多少上下文学习）。分数的定义（Key C"
        "oncepts）：上下文中第 500 个词元的损失减去第 50 个词元的平均损失。"
    ),
    "lab.induction.phase.ours": (
        "两层：{two} nats（一个窗口内占比 {share}）；一层：{one}"
        " nats；只知道上下文里有哪些词元：{bag} nats。后减前，与论文"
        "同号：论文的“大约 {paper} nats”在这里是 {paper_signed}"
    ),
    "lab.induction.heads.claim": "归纳头（以及它们读取的前一词元头）与上下文学习的变化同时形成。",
    "lab.induction.heads.rule": (
        "每个两层种子中：第二层最佳头的归纳分首次达到同一批序列上完美头得分的 {induction} 的步数，以及第一层最佳头的前"
        "一词元分首次达到该比例的步"
        "数，"
        "都在 ICL 分数完成一半变化的步数前后 {together}% 训练步数之内。所有种子都满足：成立；部分满足，或头形成了但时"
        "间不对："
        "半对；没有归纳头：不成立。"
    ),
    "lab.induction.heads.finding": (
        "ICL 完成一半变化：{half}；归纳头：{induction}（最终分数为完美头得分 {perfect_induction} 的 {ind_score}）；"
        "前一词元头：{previous}（最终为 {perfect_previous} 的 {prev_score}）。"
    ),
    "lab.induction.heads.paper": (
        "Olsson 等，论据 1：归纳头恰好在上下文学习形成的同一窗口内突然形成；例外是一层模型，归纳头从未形"
        "成；最终上下文学习的 75% 以上在这个窗口内形成。Model Details：小模型训练 10,000"
        " 步（约 100 亿个词元），相变出现在大约 10 亿到 30 亿个词元处。逐个头的步数：本次运行能读到"
        "的论文文本中没有找到。"
    ),
    "lab.induction.heads.ours": "ICL 完成一半变化：{half}；归纳头：{induction}；前一词元头：{previous}",
    "lab.induction.ablation.claim": "（在小的只有注意力的模型中）敲除这些归纳头，上下文学习能力就没了。",
    "lab.induction.ablation.rule": (
        "两部分，每个两层种子：把最强归纳头所在层的归纳头（归纳分达到完"
        "美头得分 {induction} 的每个头；一个都没有时只取最强"
        "的那个）的输出一起置零，至少去掉 {collapse}% 的 ICL "
        "分数；把该层其余头中最弱的一个置零，至多去掉 {control}%。两者"
        "都满足：成立；满足其一：半对；都不满足：不成立。"
    ),
    "lab.induction.ablation.finding": (
        "头 {heads}：完好时 ICL 分数 {icl} nats，去掉它们后 {without}"
        "，去掉同层其余头中最弱的一个后 {control}；只去掉最强"
        "的一个：{single}。"
    ),
    "lab.induction.ablation.paper": (
        "Olsson 等，论据 3：小的只有注意力的模型中，几乎所有上下文学习似乎都来自这些归纳头，从相变开始时"
        "起一直到训练结束都是如此；对小的只有注意力的模型，这一证据被评为“Strong, Causal”（强，因"
        "果）。逐个头的消融数字在 Model Analysis Table 的图中：本次运行能读到的论文文本中没"
        "有找到。"
    ),
    "lab.induction.ablation.ours": (
        "ICL {icl} → 去掉归纳头 {heads} 后 {without} nats（没有头达到完美头得分的 {induction} 时只取最强的一个；"
        "去掉其余头中最弱的一个后 {control}）"
    ),
    # ------------------------------------------------------------------ induction-text
    "lab.induction-text.title": "自然文本上的上下文学习变化与归纳头，有无 FFN（账本：Olsson 等 2022）",
    "lab.induction-text.setup": (
        "两个两层模型，{heads} 个头，d_model {d_model}：带 FFN（d_ff {d_ff}）的实验室字符模型，以及去掉 FFN "
        "的同一模型（只有注意力，同 ffn-width），各在实验室已在用的莎士比亚文本（--fast 时是实验室自己的玩具"
        "文本）的 {L} 个字符的窗口上训练 {steps} 步，批大小 {batch}。ICL 分数与 induction 条目相同：第 {late}"
        " 个字符的损失减去第 {early} 个字符的损失，在该文本 {windows} 个固定验证窗口上计算。每个头的归纳分和"
        "前一词元分来自 glassformer 的因果检测器，在字符词表的固定重复随机序列上测量，按同一批序列上完美头得"
        "分的比例来读。从论文的小模型缩小到能在 CPU 上运行。"
    ),
    "lab.induction-text.attention.claim": (
        "在自然文本上，两层只有注意力的模型的 ICL 分数在训练中的一个窄窗口内突然变化，同时形成归纳头。"
    ),
    "lab.induction-text.attention.rule": (
        "两部分，每个种子：ICL 分数总变化的至少 {half} 落在 {window}% 的训练步数之内（突然）；第二层最佳头的"
        "归纳分首次达到完美头得分 {induction} 的步数，以及第一层最佳头的前一词元分首次达到该比例的步数，都在 "
        "ICL 分数完成一半变化的步数前后 {together}% 训练步数之内（同时）。两者都满足：成立；满足其一：半对；"
        "都不满足：不成立。"
    ),
    "lab.induction-text.attention.finding": (
        "只有注意力：最终 ICL 分数 {icl} nats，一个窗口内的变化占比 {share}，完成一半变化：{half}；归纳头："
        "{induction}（最终分数为完美头得分的 {ind_score}）；前一词元头：{previous}（最终 {prev_score}）；共 "
        "{steps} 步。"
    ),
    "lab.induction-text.attention.paper": (
        "Olsson 等（transformer-circuits.pub，2022 年 3 月 8 日）：本次运行能读到的论文文本只有页面开头，其中"
        "提到先前工作的“small (1 and 2 layer attention-only) models”。论据 1 关于自然文本上训练的模型的原话、"
        "窗口宽度和数字：本次运行能读到的论文文本中没有找到（induction 条目引用了它）。"
    ),
    "lab.induction-text.attention.ours": (
        "ICL {icl} nats，一个窗口内占比 {share}；完成一半变化：{half}；归纳头：{induction}"
    ),
    "lab.induction-text.ffn.claim": (
        "带前馈层时也一样：在自然文本上，两层带 FFN 的模型的 ICL 分数在一个窄窗口内突然变化，同时形成归纳头。"
    ),
    "lab.induction-text.ffn.rule": (
        "把只有注意力那条主张的规则用于带 FFN 的模型：每个种子，ICL 分数变化的至少 {half} 落在 {window}% 的步"
        "数之内，且其归纳头（第二层，完美头得分的 {induction}）和前一词元头（第一层）都在完成一半变化的步数前"
        "后 {together}% 步数之内达到。两者都满足：成立；满足其一：半对；都不满足：不成立。"
    ),
    "lab.induction-text.ffn.finding": (
        "带 FFN：最终 ICL 分数 {icl} nats，一个窗口内的变化占比 {share}，完成一半变化：{half}；归纳头："
        "{induction}（最终分数为完美头得分的 {ind_score}）；前一词元头：{previous}（最终 {prev_score}）；共 {steps}"
        " 步。"
    ),
    "lab.induction-text.ffn.paper": (
        "Olsson 等，论据 1，关于带 MLP 的模型：其原文及相关数字，本次运行能读到的论文文本中没有找到；本次运行"
        "读到的页面开头讲的是先前工作中只有注意力的模型。"
    ),
    "lab.induction-text.ffn.ours": (
        "ICL {icl} nats，一个窗口内占比 {share}；完成一半变化：{half}；归纳头：{induction}"
    ),
    # ------------------------------------------------------------------ extrapolation
    "lab.extrapolation.title": "各位置方案的长度泛化（账本：Press 等 2022；Kazemnejad 等 2023）",
    "lab.extrapolation.setup": (
        "两部分。字符模型：沿用 length 实验的设置，只取 ALiBi "
        "说法比较的两种方案：实验室的字符模型用 ALiBi 或正弦位置，在 "
        "{T} 个字符的窗口上训练 {lm_steps} 步，再读 {T_eval} "
        "个字符的窗口，记录每个位置的验证损失。复制任务：[BOS] a_1..a_n "
        "[SEP] a_1..a_n，符号取自 {V} 个，只有复制的那一半是目"
        "标；实验室字符模型的块配上每种已注册的位置方案，在 {rows} 行固定"
        "数据（n = 1..{L}）上训练 {steps} 步，在 n = 1..{L2}"
        " 上测试。每个复制模型的 max_len 都是 {max_len}，即最长的测试行："
        "可学习位置表中 {trained} 之后的行存在，但从未训练。排名依"
        "据：超出训练长度时复制的逐词元准确率（Kazemnejad 等统计的是"
        "完全匹配）。为适应 CPU，从 Press 等的 WikiText-103 模型和"
        " Kazemnejad 等的解码器缩小而来；Kazemnejad 等比较的方案之一 "
        "T5 相对偏置，这里没有注册。"
    ),
    "lab.extrapolation.alibi.claim": (
        "用 ALiBi 在短输入上训练的语言模型，在比训练时更长的输入上保持其损失，而正弦位置会变差（短训长测）。"
    ),
    "lab.extrapolation.alibi.rule": (
        "两部分，字符模型：ALiBi 在位置 T+1..2T 的平均损失至多比它在 T/2"
        "+1..T 的损失高 {tol} nats；并且在 T+1..2T 上，ALiBi "
        "的每个种子都低于正弦位置的每个种子。两者都满足：成立；满足一个：部分成立；都不满足：不成立。"
    ),
    "lab.extrapolation.alibi.finding": (
        "ALiBi：位置 {half} 到 {T} 为 {in} nats，到位置 {T2} 为"
        " {near}，从那里到 {T_eval} 为 {far}。正弦位置：位置 {half} 到 "
        "{T} 为 {sin_in}，到位置 {T2} 为 {sin_near}（{seeds} 个种子）。"
    ),
    "lab.extrapolation.alibi.paper": (
        "Press 等，摘要：在长度 1024 的输入序列上训练的 13 亿参数模型“extrapolates to input sequences of length 2048, "
        "achieving the same perplexity as a sinusoidal position embedding model trained on inputs of length 2048”（外推"
        "到长度 2048 的输入序列，困惑度与在长度 2048 上训练的正弦位置模型相同）；图 1（WikiText-103，L = 512 和 L = "
        "1,024）：随着（验证集的）输入序列变长，现有的位置方法（正"
        "弦、旋转和 T5）困惑度变差，而他们的方法（§3）不会（这段图注读自第三方网页上的转录，"
        "论文 PDF 本身在这里读不到）。图 1 "
        "背后的困惑度（附录的表 2 和表 3）：本次运行能读到的论文文本中没有找到。"
    ),
    "lab.extrapolation.alibi.ours": (
        "字符模型，超出训练长度后 ALiBi {in} → {near} nats（{T} → {T2}）；正弦位置 {sin_in} → {sin_near}"
    ),
    "lab.extrapolation.nope.claim": (
        "在短的复制序列上训练、在长达两倍的复制序列上测试，完全没有位置编码的解码器（NoPE）比显式的位置方案泛化得更好。"
    ),
    "lab.extrapolation.nope.rule": (
        "每个种子在超出训练长度时复制的逐词元准确率。对其他每种已注"
        "册的方案：NoPE 的每个种子是否都高于该方案的每个种子？"
        "全部是：成立；部分是：部分成立；都不是：不成立。"
    ),
    "lab.extrapolation.nope.finding": (
        "n = {L1}..{L2} 时的逐词元准确率（{seeds} 个种子），从好到差：{ranking}。NoPE（{none} ± {none_spread}）排第 "
        "{place}，共 {n} 种；明显高于：{beaten}。"
    ),
    "lab.extrapolation.nope.paper": (
        "Kazemnejad 等，摘要：最常用的位置编码方法，如 ALiBi、Rotary 和 APE，不太适合下游任务中的长度泛化；更重要的是，"
        "NoPE 胜过其他显式的位置编码方法。§4：NoPE 模型“performs on par with or even better than the best-performing "
        "explicit PE, T5's Relative Bias”（与表现最好的"
        "显式位置编码 T5 相对偏置相当甚至更好；读自第三方网页上的引文，论文 PDF 本身在这里读不到）。"
        "论文给出的排名：NoPE 和 T5 "
        "相对偏置在前，ALiBi、Rotary 和 APE 在后。每种方案在各任务"
        "上的准确率，以及 ALiBi、Rotary 和 APE 之间的顺序（展示它们"
        "的那张图）：本次运行能读到的论文文本中没有找到。"
    ),
    "lab.extrapolation.nope.ours": "复制，n = {L1}..{L2} 时的逐词元准确率：{ranking}",
    # ------------------------------------------------------------------ 注意力是不是解释
    "lab.attention-explanation.title": "注意力是不是解释？（账本：Jain & Wallace 2019；Wiegreffe & Pinter 2019）",
    "lab.attention-explanation.setup": (
        "在一门合成的“情感”语言上训练分类器；论文用的是带加性注意力的 BiLSTM 做文本分类，这里缩小规模"
        "，让多个种子能在 CPU 上跑完，并且知道哪个词元决定类别：双向的 glassformer "
        "Encoder，两个块、每块一个头，d_model {d_model}，读入 [CLS] 和 {T} 个词元，在 [CLS] "
        "位置把类别当作词元来预测；{train} 个训练样例，用 glassformer 的 Trainer 训练 {steps} "
        "步。键控任务：标记词后面紧跟的情感词决定类别，另外 {distractors} 个情感词是干扰（要看相邻"
        "的两个词元：词袋解决不了）。词袋任务：1 个或 3 个情感词的多数决定类别。研究的注意力是最后一块的 "
        "[CLS] 行（它的键是带上下文的状态，就像 BiLSTM 的隐藏状态）。在 {probe} 个固定的键控样例上：这一"
        "行与每个词元重要性之间的 Kendall tau-b（梯度：把词元嵌入朝中性词做归因修补；"
        "留一：把该词元换成中性词做激活修补）；用 {search} 步 Adam 找到的对抗行，在 p(正面) 的变化不超过 "
        "{eps} 的前提下最大化与学到的行之间的 Jensen-Shannon 散度；不同种子在同一批样"
        "例上的散度；以及通过钩子点把每个注意力层的权重冻结为均匀分布，在两个任务上训练。"
    ),
    "lab.attention-explanation.tau.claim": "学到的注意力权重与基于梯度的和留一法的词元重要性只有很弱的相关。",
    "lab.attention-explanation.tau.rule": (
        "每个种子，在探针样例上对注意力行与每种重要性之间的 Kendall tau-b 取平均。两部分：每个种子"
        "与梯度重要性的平均 tau 低于 {weak}；每个种子与留一重要性的平均 tau 低于 {weak}。都满足：成"
        "立；满足一个：半对；都不满足：不成立。"
    ),
    "lab.attention-explanation.tau.finding": (
        "{seeds} 个种子，测试准确率 {accuracy}：注意力与梯度的平均 tau 为 {grad}，与留一为 "
        "{loo}；两种重要性彼此之间为 {grad_loo}。"
    ),
    "lab.attention-explanation.tau.paper": (
        "Jain & Wallace，摘要：“learned attention weights are frequently uncorrelated with gradient-based "
        "measures of feature importance”（学到的注意力权重常常与基于梯度的特征重要性不相关）。各数据集的 "
        "Kendall tau 数字：在本次运行可用的论文文本中未找到。"
    ),
    "lab.attention-explanation.tau.ours": "平均 tau：注意力对梯度 {grad}，对留一 {loo}",
    "lab.attention-explanation.adversarial.claim": (
        "一个很不一样的注意力分布能给出同样的预测——而且“很不一样”超过了不同种子训练出的两个模型之间的差别。"
    ),
    "lab.attention-explanation.adversarial.rule": (
        "每个种子、每个探针样例：在 p(正面) 的变化不超过 {eps} 的对抗行中，与学到的行之间最大的 "
        "Jensen-Shannon 散度。两部分：每个种子中至少 {most} 的样例达到 {far} 或更大的散度；每个种子的"
        "散度中位数都高于任意两个种子的行之间散度的中位数。都满足：成立；满足一个：半对；都不满足：不成立。"
    ),
    "lab.attention-explanation.adversarial.finding": (
        "对抗散度达到 {far} 或更大的样例占比：{share}；对抗散度中位数 {median}；种子之间散度的中位数 "
        "{seed_jsd}。学到的注意力在决定类别的词上的权重：{deciding}。"
    ),
    "lab.attention-explanation.adversarial.paper": (
        "Jain & Wallace，摘要：“one can identify very different attention distributions that nonetheless "
        "yield equivalent predictions”（能找到很不一样却给出等价预测的注意力分布）。Wiegreffe & "
        "Pinter，摘要：他们的检验之一是“a variance calibration based on multiple random seed "
        "runs”（用多个随机种子的运行校准方差），并且“even when reliable adversarial distributions can be "
        "found, they don't perform well on the simple diagnostic”。两篇论文中测得的散度数字"
        "：在本次运行可用的论文文本中未找到。"
    ),
    "lab.attention-explanation.adversarial.ours": (
        "{share} 的样例达到散度 {far}；中位数 {median}，种子之间为 {seed_jsd}"
    ),
    "lab.attention-explanation.uniform.claim": (
        "均匀权重基线能把任务分开：由词袋决定类别时，冻结为均匀的注意力和学到的注意力分类得一样好；由词元"
        "顺序决定时则不然。"
    ),
    "lab.attention-explanation.uniform.rule": (
        "用学到的注意力和均匀注意力训练的分类器在留出集上的准确率，每个种子。两部分：词袋任务上均匀的平均"
        "值最多比学到的平均值低 {tie}；键控任务上学到的最差种子比均匀的最好种子至少高 {gap}。都满足：成立"
        "；满足一个：半对；都不满足：不成立。"
    ),
    "lab.attention-explanation.uniform.finding": (
        "词袋任务：学到的 {bag_learned}，均匀 {bag_uniform}。键控任务：学到的 {keyed_learned}，均匀 {keyed_uniform}。"
    ),
    "lab.attention-explanation.uniform.paper": (
        "Wiegreffe & Pinter，摘要：他们的第一个检验是“a simple uniform-weights baseline”（一个"
        "简单的均匀权重基线）。各数据集冻结为均匀权重时的分数：在本次运行可用的论文文本中未找到。"
    ),
    "lab.attention-explanation.uniform.ours": (
        "词袋：学到的 {bag_learned}，均匀 {bag_uniform}；键控：学到的 {keyed_learned}，均匀 {keyed_uniform}"
    ),
    "lab.ledger.title": "复现账本：在 CPU 上重跑已发表的小 Transformer 结果",
    "lab.ledger.intro": (
        "每行是一个已发表结果中的一条说法，按笔记本 CPU 缩小规模：论文的数字（及其出处）和我们的数字并列，判定来自一条"
        "在运行"
        "之前就以代码写定的规则。能读到的论文文本中找不到论文数字时，该行如实说明，而不是引用一个数。"
    ),
    "lab.ledger.col.entry": "条目",
    "lab.ledger.col.source": "论文",
    "lab.ledger.col.claim": "说法",
    "lab.ledger.col.paper": "论文的数字",
    "lab.ledger.col.ours": "我们的数字",
    "lab.ledger.col.verdict": "判定",
    "lab.ledger.col.cpu": "CPU 时间",
    "lab.ledger.took": "CPU {cpu} 秒（墙钟 {wall} 秒）",
}
