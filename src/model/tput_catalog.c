/* berth's built-in throughput catalog, so a simulation needs no throughput file: Gavel's
 * measured rates of running alone (steps per second) for its 26 job types (ResNet-18,
 * ResNet-50, Transformer, LM and Recommendation at several batch sizes, CycleGAN, A3C) on
 * K80, P100 and V100 at gang sizes 1, 2, 4 and 8, on one server and spread over servers.
 *
 * Every figure is copied exactly from stanford-futuredata/gavel @ c4fa40097339,
 * scheduler/simulation_throughputs.json (the "null" entry of each "('<type>', <sf>)" key);
 * tests/model/test_tput.c checks each against that file. NA marks a key the file does not have;
 * 0.0 is the file's own (K80 ResNet-50 at batch size 128 does not run on 2 or more GPUs).
 * Gavel's co-location pairs are left out (load the file for them), and so are GPU types it
 * did not measure (A100, H100, ...): no figure here is made up.
 *
 * The whole table is kept, not a sample of it: the Gavel trace loader derives run times from
 * every job type's V100 rates through berth__tput_catalog_floor, so this is the one copy of
 * Gavel's figures in berth. Each block is sorted by class name (strcmp) for binary search. */
#include <string.h>

#include "model/tput.h"
#include "model/tput_catalog.h"

#define NA (-1.0) /* not in Gavel's file (any negative value) */

static const int32_t gangs[4] = {1, 2, 4, 8};

struct gavel_row {
    const char *cls;
    double rate[4]; /* at gangs[i] */
};

/* One server, K80: stanford-futuredata/gavel @ c4fa40097339,
 * scheduler/simulation_throughputs.json, key "k80". */
static const struct gavel_row k80[] = {
    {"A3C", {3.4387678290723933, NA, NA, NA}},
    {"CycleGAN", {0.5047705689725351, NA, NA, NA}},
    {"LM (batch size 10)",
     {23.794428965833195, 29.984857868091424, 42.95641711924023, 75.56769495697503}},
    {"LM (batch size 20)",
     {17.142289692304086, 23.773289373427588, 35.70344542111913, 61.44923706594953}},
    {"LM (batch size 40)",
     {11.49965208600937, 16.069669774246478, 22.985588987864023, 43.14645512121931}},
    {"LM (batch size 5)",
     {25.485501277170847, 32.38551179103253, 44.08947633248205, 76.86310558968589}},
    {"LM (batch size 80)",
     {6.054204218128158, 10.008340130840935, 16.388740436358198, 28.28611005020739}},
    {"Recommendation (batch size 1024)", {20.04995255198869, NA, NA, NA}},
    {"Recommendation (batch size 2048)", {10.441219687328084, NA, NA, NA}},
    {"Recommendation (batch size 4096)", {5.30024719584159, NA, NA, NA}},
    {"Recommendation (batch size 512)", {32.859303327562166, NA, NA, NA}},
    {"Recommendation (batch size 8192)", {2.698783123478088, NA, NA, NA}},
    {"ResNet-18 (batch size 128)",
     {1.8065297880422846, 3.631452370926338, 6.98169990398197, 13.663632559853195}},
    {"ResNet-18 (batch size 16)",
     {4.795294551566172, 8.758230831811566, 16.121271269107403, 26.918422115521246}},
    {"ResNet-18 (batch size 256)",
     {0.8855799947494726, 1.673815653100855, 3.4051948296210313, 6.975265819624308}},
    {"ResNet-18 (batch size 32)",
     {7.175820532538584, 13.180372871036058, 22.529256735348344, 43.91928859031286}},
    {"ResNet-18 (batch size 64)",
     {7.052080666695425, 12.495482346599234, 21.625568416059814, 42.64410449114462}},
    {"ResNet-50 (batch size 128)", {0.3472236920519382, 0.0, 0.0, 0.0}},
    {"ResNet-50 (batch size 16)",
     {2.3005199880283542, 4.300705880226241, 7.704099165853955, 15.056077334896191}},
    {"ResNet-50 (batch size 32)",
     {1.236568777004088, 2.3533431662281292, 4.379159016600026, 8.792272408351025}},
    {"ResNet-50 (batch size 64)",
     {0.6190282202246573, 1.2636370655757299, 2.4122290974193286, 4.568730189823378}},
    {"Transformer (batch size 128)",
     {0.9815827061299781, 1.6574724675832473, 2.8653897227567016, 5.25701364575837}},
    {"Transformer (batch size 16)",
     {5.467379291465242, 7.047480389257892, 10.273295899928122, 18.61836098073023}},
    {"Transformer (batch size 256)",
     {0.4583310125271042, 0.8491945073883904, 1.512889415506919, 2.923240558897543}},
    {"Transformer (batch size 32)",
     {3.5074188411966185, 5.096588727031865, 7.984971344075782, 13.912540666729642}},
    {"Transformer (batch size 64)",
     {1.7522265657120206, 3.0630786746251895, 5.030983562889494, 8.97621997981465}},
};

/* Gangs spread over servers, K80: stanford-futuredata/gavel @ c4fa40097339,
 * scheduler/simulation_throughputs.json, key "k80_unconsolidated". */
static const struct gavel_row k80_spread[] = {
    {"A3C", {3.4387678290723933, NA, NA, NA}},
    {"CycleGAN", {0.5047705689725351, NA, NA, NA}},
    {"LM (batch size 10)",
     {23.794428965833195, 21.144463279750546, 32.37866641365434, 62.64704428897793}},
    {"LM (batch size 20)",
     {17.142289692304086, 16.92609900839572, 29.98804795319048, 58.070420448108024}},
    {"LM (batch size 40)",
     {11.49965208600937, 13.413702605005337, 23.447182084595084, 46.31743656724768}},
    {"LM (batch size 5)",
     {25.485501277170847, 22.128257109587743, 32.560095681681716, 63.18665300336181}},
    {"LM (batch size 80)",
     {6.054204218128158, 10.126869259723048, 17.433685490231134, 28.983767604739228}},
    {"Recommendation (batch size 1024)", {20.04995255198869, NA, NA, NA}},
    {"Recommendation (batch size 2048)", {10.441219687328084, NA, NA, NA}},
    {"Recommendation (batch size 4096)", {5.30024719584159, NA, NA, NA}},
    {"Recommendation (batch size 512)", {32.859303327562166, NA, NA, NA}},
    {"Recommendation (batch size 8192)", {2.698783123478088, NA, NA, NA}},
    {"ResNet-18 (batch size 128)",
     {1.8065297880422846, 3.9483203678754615, 7.930460961472075, 15.767620879149977}},
    {"ResNet-18 (batch size 16)",
     {4.795294551566172, 9.26385034797633, 17.083055822606354, 32.28084990254078}},
    {"ResNet-18 (batch size 256)",
     {0.8855799947494726, 1.8802069745929957, 3.770924453649637, 7.742448772136872}},
    {"ResNet-18 (batch size 32)",
     {7.175820532538584, 14.506562438302932, 25.510113966795828, 46.50276933417986}},
    {"ResNet-18 (batch size 64)",
     {7.052080666695425, 13.992639127677469, 25.06513647995657, 45.614881822807476}},
    {"ResNet-50 (batch size 128)", {0.3472236920519382, NA, NA, NA}},
    {"ResNet-50 (batch size 16)",
     {2.3005199880283542, 4.68320108335487, 9.316118686415471, 18.09186111712128}},
    {"ResNet-50 (batch size 32)",
     {1.236568777004088, 2.558668715861308, 5.039914775069392, 10.00263400083064}},
    {"ResNet-50 (batch size 64)", {0.6190282202246573, NA, NA, NA}},
    {"Transformer (batch size 128)",
     {0.9815827061299781, 1.56572727338235, 2.8526490444021095, 5.177948344422811}},
    {"Transformer (batch size 16)",
     {5.467379291465242, 5.607136345103253, 9.736405194010153, 16.11501017571794}},
    {"Transformer (batch size 256)",
     {0.4583310125271042, 0.8907794023600388, 1.5720826755673625, 3.035959776472245}},
    {"Transformer (batch size 32)",
     {3.5074188411966185, 4.150464537990065, 6.950187717290474, 12.295692636412596}},
    {"Transformer (batch size 64)",
     {1.7522265657120206, 2.726588607798238, 4.5067422320429165, 8.233982696754108}},
};

/* One server, P100: stanford-futuredata/gavel @ c4fa40097339,
 * scheduler/simulation_throughputs.json, key "p100". */
static const struct gavel_row p100[] = {
    {"A3C", {5.681346110543853, NA, NA, NA}},
    {"CycleGAN", {2.4026681703106223, NA, NA, NA}},
    {"LM (batch size 10)",
     {77.0846780814848, 72.53230564648803, 105.18225815357819, 127.78891069226745}},
    {"LM (batch size 20)",
     {58.17267240669826, 62.33209834747592, 93.81478290324394, 116.64882298424683}},
    {"LM (batch size 40)",
     {35.76638325549232, 48.04183588734964, 76.05171457103407, 102.24830495094295}},
    {"LM (batch size 5)",
     {90.77591199634988, 76.92190129668617, 110.21661082949367, 133.5240899561302}},
    {"LM (batch size 80)",
     {21.157527655800312, 31.841192000355488, 54.99554190953061, 82.93412253724979}},
    {"Recommendation (batch size 1024)", {30.74443726150114, NA, NA, NA}},
    {"Recommendation (batch size 2048)", {16.59663998583255, NA, NA, NA}},
    {"Recommendation (batch size 4096)", {8.896661974093526, NA, NA, NA}},
    {"Recommendation (batch size 512)", {48.882390510045944, NA, NA, NA}},
    {"Recommendation (batch size 8192)", {5.548440840558535, NA, NA, NA}},
    {"ResNet-18 (batch size 128)",
     {11.675499943575447, 24.227371898345275, 45.35074002546124, 85.0793574120047}},
    {"ResNet-18 (batch size 16)",
     {35.869203207990005, 60.91063005118197, 94.32078314001782, 130.0887520612053}},
    {"ResNet-18 (batch size 256)",
     {7.72278472419796, 14.228807697629525, 27.729263473363318, 53.95682972575557}},
    {"ResNet-18 (batch size 32)",
     {35.82535355155143, 57.51885541851509, 97.03631932363041, 141.9954227360289}},
    {"ResNet-18 (batch size 64)",
     {22.30494387033663, 41.4822445592434, 74.99057006200313, 120.03699011475503}},
    {"ResNet-50 (batch size 128)",
     {1.5843515911819712, 2.8808978271495276, 5.1911475091878305, 9.934969604819724}},
    {"ResNet-50 (batch size 16)",
     {9.052989674171888, 16.191429630480485, 30.798442100370274, 44.762451467168084}},
    {"ResNet-50 (batch size 32)",
     {4.888323684976709, 9.74900668428164, 18.54991898899511, 33.56764624346652}},
    {"ResNet-50 (batch size 64)",
     {2.6194694075770055, 5.515986118186492, 10.36465731519379, 18.221203053711378}},
    {"Transformer (batch size 128)",
     {3.0735350560514787, 5.087428857861381, 8.774055121555529, 13.683972901970593}},
    {"Transformer (batch size 16)",
     {9.537249191611776, 14.305256582711568, 21.234952837777445, 29.01970958583352}},
    {"Transformer (batch size 256)",
     {1.6776964927127545, 2.941399294868527, 5.243218194017366, 9.253168924824209}},
    {"Transformer (batch size 32)",
     {7.8692234803005805, 11.223818907187308, 18.159443120087595, 26.224031658180404}},
    {"Transformer (batch size 64)",
     {5.091830907900463, 7.886748284628143, 13.313004543426457, 19.942981926164425}},
};

/* Gangs spread over servers, P100: stanford-futuredata/gavel @ c4fa40097339,
 * scheduler/simulation_throughputs.json, key "p100_unconsolidated". */
static const struct gavel_row p100_spread[] = {
    {"A3C", {5.681346110543853, NA, NA, NA}},
    {"CycleGAN", {2.4026681703106223, NA, NA, NA}},
    {"LM (batch size 10)",
     {77.0846780814848, 37.56836549590559, 49.1730934852632, 84.50242202120248}},
    {"LM (batch size 20)",
     {58.17267240669826, 32.86043372584382, 40.938539794540844, 65.83232467185971}},
    {"LM (batch size 40)",
     {35.76638325549232, 21.277122132151156, 31.738762079745023, 58.24045225572611}},
    {"LM (batch size 5)",
     {90.77591199634988, 38.7515246395519, 55.37442684680559, 94.88447800321559}},
    {"LM (batch size 80)",
     {21.157527655800312, 17.265190636431416, 26.684463134789652, 48.885565768951274}},
    {"Recommendation (batch size 1024)", {30.74443726150114, NA, NA, NA}},
    {"Recommendation (batch size 2048)", {16.59663998583255, NA, NA, NA}},
    {"Recommendation (batch size 4096)", {8.896661974093526, NA, NA, NA}},
    {"Recommendation (batch size 512)", {48.882390510045944, NA, NA, NA}},
    {"Recommendation (batch size 8192)", {5.548440840558535, NA, NA, NA}},
    {"ResNet-18 (batch size 128)",
     {11.675499943575447, 19.56909758847292, 32.99322292236761, 60.464301140337824}},
    {"ResNet-18 (batch size 16)",
     {35.869203207990005, 34.889140006633475, 55.90339844753711, 79.61273894143937}},
    {"ResNet-18 (batch size 256)",
     {7.72278472419796, 14.673423524763422, 24.836507156626023, 45.76851171701576}},
    {"ResNet-18 (batch size 32)",
     {35.82535355155143, 34.8658976475723, 53.37135022085045, 74.43188407933509}},
    {"ResNet-18 (batch size 64)",
     {22.30494387033663, 25.51190796942008, 40.20664390584142, 67.76833426372711}},
    {"ResNet-50 (batch size 128)",
     {1.5843515911819712, 2.895453673178042, 5.575081415439996, 10.729904712124876}},
    {"ResNet-50 (batch size 16)",
     {9.052989674171888, 12.17856699932841, 18.05783712383328, 30.616132818147356}},
    {"ResNet-50 (batch size 32)",
     {4.888323684976709, 9.428903884017824, 14.844664649735577, 26.342674296033323}},
    {"ResNet-50 (batch size 64)",
     {2.6194694075770055, 5.605964633039514, 10.5641333165412, 18.903561107896458}},
    {"Transformer (batch size 128)",
     {3.0735350560514787, 3.7161866049260612, 5.878341806869093, 10.269592342352071}},
    {"Transformer (batch size 16)",
     {9.537249191611776, 9.005919818236762, 14.311142263095963, 21.109753164503896}},
    {"Transformer (batch size 256)",
     {1.6776964927127545, 2.4285682823403545, 3.975615802955069, 7.313708905419555}},
    {"Transformer (batch size 32)",
     {7.8692234803005805, 7.696279436371643, 11.900456367470646, 19.9942998811011}},
    {"Transformer (batch size 64)",
     {5.091830907900463, 5.5045991133143, 9.006861907718129, 15.177760399511316}},
};

/* One server, V100: stanford-futuredata/gavel @ c4fa40097339,
 * scheduler/simulation_throughputs.json, key "v100". */
static const struct gavel_row v100[] = {
    {"A3C", {7.175767179667988, NA, NA, NA}},
    {"CycleGAN", {4.426088263367452, NA, NA, NA}},
    {"LM (batch size 10)",
     {81.65163491883021, 163.12902048608936, 121.4776195889045, 615.0934647748222}},
    {"LM (batch size 20)",
     {64.74245099960703, 132.17413449742747, 110.99685986392635, 497.2952582330656}},
    {"LM (batch size 40)",
     {45.23737155222392, 91.59265730806288, 96.0312451685392, 359.30692492331696}},
    {"LM (batch size 5)",
     {109.16661771207029, 185.72383101933428, 126.71571815404346, 698.773292956699}},
    {"LM (batch size 80)",
     {28.239955054085122, 58.09153801943523, 74.80729601169598, 231.17619885320647}},
    {"Recommendation (batch size 1024)", {13.2825697082565, NA, NA, NA}},
    {"Recommendation (batch size 2048)", {7.469632060833725, NA, NA, NA}},
    {"Recommendation (batch size 4096)", {3.9060505302376054, NA, NA, NA}},
    {"Recommendation (batch size 512)", {23.317634950657975, NA, NA, NA}},
    {"Recommendation (batch size 8192)", {2.841510364354536, NA, NA, NA}},
    {"ResNet-18 (batch size 128)",
     {17.994906225052176, 23.985353059276264, 69.95051765177759, 162.09160717942794}},
    {"ResNet-18 (batch size 16)",
     {32.353384328946916, 100.14206200421837, 123.85376642692827, 382.5974422686407}},
    {"ResNet-18 (batch size 256)",
     {10.300256501360458, 15.882848624471642, 27.7820579015064, 81.5065873273903}},
    {"ResNet-18 (batch size 32)",
     {29.947157347732464, 94.24893164660543, 114.73342037584995, 340.0383618985821}},
    {"ResNet-18 (batch size 64)",
     {24.093231895382736, 74.13589143268821, 95.58814453205626, 255.82913926317391}},
    {"ResNet-50 (batch size 128)",
     {2.4967655780898292, 4.2230145549692715, 7.029294087316617, 10.293183147179176}},
    {"ResNet-50 (batch size 16)",
     {11.396129065315943, 13.859757680196113, 23.195585654383645, 27.799094635512898}},
    {"ResNet-50 (batch size 32)",
     {7.787264918596293, 10.834571175121209, 13.763229095099536, 24.067423556662327}},
    {"ResNet-50 (batch size 64)",
     {4.394774823323071, 7.922054367597505, 9.451949566394442, 17.303172756892167}},
    {"Transformer (batch size 128)",
     {5.44610521981264, 10.069238394742342, 14.17451716526748, 30.88352104398441}},
    {"Transformer (batch size 16)",
     {11.06408721300405, 14.153819944879553, 20.0849760042163, 71.65168021872898}},
    {"Transformer (batch size 256)",
     {1.5951407072133263, 2.8852436298687203, 4.763045770199511, 9.71702368412533}},
    {"Transformer (batch size 32)",
     {10.620893339463915, 13.328037548850137, 22.822511223673345, 63.97766004389649}},
    {"Transformer (batch size 64)",
     {8.61775899193302, 15.876496488983058, 19.65962221663049, 49.650700211670745}},
};

/* Gangs spread over servers, V100: stanford-futuredata/gavel @ c4fa40097339,
 * scheduler/simulation_throughputs.json, key "v100_unconsolidated". */
static const struct gavel_row v100_spread[] = {
    {"A3C", {7.175767179667988, NA, NA, NA}},
    {"CycleGAN", {4.426088263367452, NA, NA, NA}},
    {"LM (batch size 10)",
     {81.65163491883021, 35.14049049611691, 37.81871255338689, 65.52054641658911}},
    {"LM (batch size 20)",
     {64.74245099960703, 30.43655149451939, 33.39848640549825, 58.88800403527842}},
    {"LM (batch size 40)",
     {45.23737155222392, 21.221655840387907, 29.171071990134404, 52.038345872036444}},
    {"LM (batch size 5)",
     {109.16661771207029, 40.35214697555348, 44.89558237657379, 73.11997842291213}},
    {"LM (batch size 80)",
     {28.239955054085122, 17.74736975637369, 26.65015631198491, 47.890963521937906}},
    {"Recommendation (batch size 1024)", {13.2825697082565, NA, NA, NA}},
    {"Recommendation (batch size 2048)", {7.469632060833725, NA, NA, NA}},
    {"Recommendation (batch size 4096)", {3.9060505302376054, NA, NA, NA}},
    {"Recommendation (batch size 512)", {23.317634950657975, NA, NA, NA}},
    {"Recommendation (batch size 8192)", {2.841510364354536, NA, NA, NA}},
    {"ResNet-18 (batch size 128)",
     {17.994906225052176, 24.51124807958096, 35.36073786760009, 61.136289695518286}},
    {"ResNet-18 (batch size 16)",
     {32.353384328946916, 35.33651986363828, 40.58866712641168, 64.40995361172301}},
    {"ResNet-18 (batch size 256)",
     {10.300256501360458, 19.70273436682171, 30.2259428944468, 53.86267858076396}},
    {"ResNet-18 (batch size 32)",
     {29.947157347732464, 32.66381664166504, 38.1152034064521, 63.19988856422021}},
    {"ResNet-18 (batch size 64)",
     {24.093231895382736, 31.480249474532947, 38.310553138543824, 63.15389344591445}},
    {"ResNet-50 (batch size 128)",
     {2.4967655780898292, 4.334148396057893, 7.506379405025379, 13.94274652803731}},
    {"ResNet-50 (batch size 16)",
     {11.396129065315943, 10.040204671578946, 14.90134065234992, 25.165047233137543}},
    {"ResNet-50 (batch size 32)",
     {7.787264918596293, 8.974429368407247, 12.846338026721046, 22.82976391752828}},
    {"ResNet-50 (batch size 64)",
     {4.394774823323071, 6.865936825179568, 11.136430014818272, 19.757330902241037}},
    {"Transformer (batch size 128)",
     {5.44610521981264, 5.048927648904929, 7.783568157137881, 13.029708539692692}},
    {"Transformer (batch size 16)",
     {11.06408721300405, 8.874933593416035, 11.630888044056114, 19.811115195186037}},
    {"Transformer (batch size 256)",
     {1.5951407072133263, 2.2326187867761664, 3.6636835534022656, 6.798535557262475}},
    {"Transformer (batch size 32)",
     {10.620893339463915, 8.719481387912793, 11.959452544924188, 19.122015133057793}},
    {"Transformer (batch size 64)",
     {8.61775899193302, 7.005137811237574, 10.570291051568956, 17.010354252487097}},
};

static const struct block {
    const char *gpu_type;
    int spread;
    const struct gavel_row *rows;
    size_t n;
} blocks[] = {
    {"k80", 0, k80, sizeof k80 / sizeof *k80},
    {"k80", 1, k80_spread, sizeof k80_spread / sizeof *k80_spread},
    {"p100", 0, p100, sizeof p100 / sizeof *p100},
    {"p100", 1, p100_spread, sizeof p100_spread / sizeof *p100_spread},
    {"v100", 0, v100, sizeof v100 / sizeof *v100},
    {"v100", 1, v100_spread, sizeof v100_spread / sizeof *v100_spread},
};

#define NBLOCKS (sizeof blocks / sizeof *blocks)

/* The row of cls in block b, NULL when absent. */
static const struct gavel_row *find_row(const struct block *b, const char *cls)
{
    size_t lo = 0, hi = b->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(b->rows[mid].cls, cls);
        if (c == 0)
            return &b->rows[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

int32_t berth__tput_catalog_floor(const char *cls, const char *gpu_type, int spread, int32_t gpus,
                                  double *rate)
{
    for (size_t i = 0; i < NBLOCKS; i++) {
        if (strcmp(blocks[i].gpu_type, gpu_type) || blocks[i].spread != !!spread)
            continue;
        const struct gavel_row *r = find_row(&blocks[i], cls);
        int32_t at = 0;
        for (int g = 0; r && g < 4 && gangs[g] <= gpus; g++)
            if (r->rate[g] >= 0) {
                at = gangs[g];
                *rate = r->rate[g];
            }
        return at;
    }
    return 0;
}

int berth_tput_builtin(struct berth_tput **out, struct berth_err *err)
{
    struct berth_tput *m = berth__tput_new();
    if (!m)
        goto nomem;
    for (size_t i = 0; i < NBLOCKS; i++) {
        int t;
        if (berth__tput_add_type(m, blocks[i].gpu_type, &t))
            goto nomem;
        for (size_t j = 0; j < blocks[i].n; j++) {
            const struct gavel_row *r = &blocks[i].rows[j];
            int c;
            if (berth__tput_add_class(m, r->cls, &c))
                goto nomem;
            for (int g = 0; g < 4; g++)
                if (r->rate[g] >= 0 &&
                    berth__tput_add_point(m, c, t, gangs[g], blocks[i].spread, r->rate[g]))
                    goto nomem;
        }
    }
    *out = m;
    return 0;
nomem:
    berth_tput_free(m);
    return berth_err_set(err, BERTH_ENOMEM, "built-in throughput catalog: out of memory");
}
